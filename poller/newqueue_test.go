package poller

import (
	"fmt"
	"github.com/valkey-io/valkey-go"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// prevPlaces finds each name's place in the last list, whatever came or
// went between them, by the walk of both lists (the last snapshot made
// from the last list) and by the map (a snapshot made from another): the
// same places as a look-up of every name, -1 for a name the last had not.
func TestPrevPlacesAgreeWithALookUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		var last, list []string
		for k := range rng.IntN(300) {
			name := fmt.Sprintf("q-%04d", k)
			inLast, inList := rng.IntN(10) > 0, rng.IntN(10) > 0
			if round%4 == 0 { // lists that differ much
				inLast, inList = rng.IntN(2) == 0, rng.IntN(2) == 0
			}
			if inLast {
				last = append(last, name)
			}
			if inList {
				list = append(list, name)
			}
		}
		var b model.QueueListBuilder
		for _, name := range last {
			b.Add(&model.Queue{Name: name})
		}
		prev := b.List()
		want := make([]int32, len(list))
		for i, name := range list {
			j, ok := slices.BinarySearch(last, name)
			want[i] = -1
			if ok {
				want[i] = int32(j)
			}
		}
		if got := prevPlaces(list, last, prev); !slices.Equal(got, want) {
			t.Fatalf("round %d, walked: %v, want %v", round, got, want)
		}
		if got := prevPlaces(list, nil, prev); len(last) > 0 && !slices.Equal(got, want) {
			t.Fatalf("round %d, by the map: %v, want %v", round, got, want)
		}
	}
}

// A queue that comes while the poller runs by changes is listed with its
// figures, and the poll that lists it puts in the history only what is
// not the last snapshot's: the new queue and those read, not every queue
// (a poll with a queue more walked and put a million queues' values). The
// queues after it in the list, at places one further on, keep their
// readings and their pasts.
func TestANewQueueCostsWhatChanged(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := 0; i < 60; i++ {
		qs[fmt.Sprintf("n-%02d", i)] = want{pending: 1}
	}
	fill(t, c, qs)
	p, _ := pollAll(t, c, Options{Sweep: 24 * time.Hour, RediscoverEvery: time.Second})
	before := untilChanges(t, p)
	pastOf := func(s *model.Snapshot, name string) int64 { return s.Queue(name).Past.LastChangeMs() }

	// "n-00a" sorts after n-00: every other queue moves one place on
	if _, err := echomq.Enqueue(ctx, c, "n-00a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	var s *model.Snapshot
	vtest.Until(t, 30*time.Second, "the new queue listed", func() bool {
		s = pollOne(t, p)
		return s.Queue("n-00a") != nil
	})
	if q := s.Queue("n-00a"); q.Pending != 1 || q.Stale || q.Err != "" || !q.Past.Known() {
		t.Fatalf("the new queue: pending %d, stale %v, err %q, past known %v", q.Pending, q.Stale, q.Err, q.Past.Known())
	}
	if p.last.touched == nil || len(p.last.touched) > 5 {
		t.Fatalf("the poll that listed it put %d queues in the history (nil: all), want the new one and the few read", len(p.last.touched))
	}
	if s.Poll.Carried < len(qs)-5 {
		t.Errorf("the poll that listed it carried %d queues of %d: the others were read or walked anew", s.Poll.Carried, len(qs))
	}
	checkCounts(t, s, qs)
	for name := range qs {
		if got, was := pastOf(s, name), pastOf(before, name); got != was {
			t.Errorf("%s: its past changed at %d, last %d, with nothing written to it", name, got, was)
		}
	}

	// a queue gone (its keys deleted: EchoMQ keeps no empty set): the
	// pass that misses it drops it, the sums lose it (pollOne checks them
	// against the queues listed), the others carried
	keys, err := keyspace.KeysOf("n-30")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, c.B().Del().Key(keys.Pending, keys.Active, keys.Schedule).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	delete(qs, "n-30")
	vtest.Until(t, 30*time.Second, "the queue gone unlisted", func() bool {
		s = pollOne(t, p)
		return s.Queue("n-30") == nil
	})
	if p.last.touched == nil || len(p.last.touched) > 5 || s.Poll.Carried < len(qs)-5 {
		t.Errorf("the poll that dropped it: %d put in the history (nil: all), %d carried", len(p.last.touched), s.Poll.Carried)
	}
	checkCounts(t, s, qs)
}

// A queue's first write is on screen within two polls though no discovery
// pass can find it (the next is an hour off): the primary's tracking saw
// its set written, and the poller lists and reads it. A write to a job row
// alone of a queue no set names is not a queue (discovery would not list
// it either).
func TestAFirstWriteIsListedWithinTwoPolls(t *testing.T) {
	c, qs := filledCluster(t, "w", 30)
	p, _ := pollAll(t, c, Options{Sweep: 24 * time.Hour, RediscoverEvery: time.Hour, DiscoveryShare: 1e-9})
	untilChanges(t, p)
	ghost, err := keyspace.JobKey("ghost", "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, c.B().Hset().Key(ghost).FieldValue().FieldValue("attempts", "1").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if _, err := echomq.Enqueue(ctx, c, "tenant-new", []byte("x")); err != nil {
		t.Fatal(err)
	}
	qs["tenant-new"] = want{pending: 1}
	var s *model.Snapshot
	for n := 1; ; n++ {
		s = pollOne(t, p)
		if q := s.Queue("tenant-new"); q != nil {
			if q.Pending != 1 || q.Stale || q.Err != "" {
				t.Fatalf("poll %d lists the new queue: pending %d, stale %v, err %q", n, q.Pending, q.Stale, q.Err)
			}
			break
		}
		if n == 2 {
			t.Fatalf("the new queue is not listed two polls after its first write (%d queues listed)", s.Queues.Len())
		}
	}
	checkCounts(t, s, qs)
	if s.Queue("ghost") != nil {
		t.Error("a job row alone listed its queue")
	}
	for addr, st := range p.nodes {
		if st.passes != 1 {
			t.Errorf("%s: %d discovery passes, want the first alone (the next an hour off)", addr, st.passes)
		}
	}
}

// filledCluster is a 3-primary cluster of n queues (prefix-00…), a pending
// job each, and what each holds.
func filledCluster(t *testing.T, prefix string, n int) (valkey.Client, map[string]want) {
	t.Helper()
	_, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := range n {
		qs[fmt.Sprintf("%s-%02d", prefix, i)] = want{pending: 1}
	}
	fill(t, c, qs)
	return c, qs
}

// A discovery pass that finds a queue gone drops it though the same pass
// gained one (a first write the tracking listed into it): the pass has the
// last one's count, and a list made again only when the counts differed
// kept the queue gone listed for good (a CI run met it by chance).
func TestAPassThatGainsOneAndLosesOneDropsTheLost(t *testing.T) {
	c, qs := filledCluster(t, "g", 30)
	p, _ := pollAll(t, c, Options{Sweep: 24 * time.Hour, RediscoverEvery: time.Hour, DiscoveryShare: 1e-9})
	untilChanges(t, p)
	owner := func(q string) string {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.topo.OwnerOf(keyspace.QueueSlot(q)).Addr
	}
	gone, fresh := "g-00", ""
	for i := 0; fresh == ""; i++ { // a new queue on gone's node
		if name := fmt.Sprintf("g-new-%d", i); owner(name) == owner(gone) {
			fresh = name
		}
	}
	if _, err := echomq.Enqueue(ctx, c, fresh, []byte("x")); err != nil {
		t.Fatal(err)
	}
	var s *model.Snapshot
	vtest.Until(t, 30*time.Second, "the new queue listed by its first write", func() bool {
		s = pollOne(t, p)
		return s.Queue(fresh) != nil
	})
	qs[fresh] = want{pending: 1}
	keys, err := keyspace.KeysOf(gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, c.B().Del().Key(keys.Pending, keys.Active, keys.Schedule).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	delete(qs, gone)
	st := p.nodes[owner(gone)]
	if st.passes != 1 {
		t.Fatalf("%d passes before the deletion, want the first alone (the new queue listed by tracking, not found by a pass)", st.passes)
	}
	p.opt.RediscoverEvery = time.Millisecond // passes from now on
	vtest.Until(t, 30*time.Second, "the queue gone unlisted", func() bool {
		s = pollOne(t, p)
		return s.Queue(gone) == nil
	})
	if st.passes < 2 {
		t.Fatalf("unlisted after %d passes: not by a pass", st.passes)
	}
	checkCounts(t, s, qs)
}
