package poller

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// takeUntil takes from t until ok says the changes have arrived.
func takeUntil(t *testing.T, tr *Tracker, ok func(slots []uint16, all, alive bool) bool) {
	t.Helper()
	vtest.Until(t, 30*time.Second, "the tracker to see the change", func() bool { return ok(tr.Take()) })
}

// On a real cluster: a write to a queue marks its slot dirty on the
// owner's tracker and nowhere else; a flush marks everything; a killed
// tracking connection leaves the tracker all dirty for good.
func TestTrackerOnACluster(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	nodes := c.Nodes()
	trackers := map[string]*Tracker{}
	for _, n := range cl.Nodes {
		tr, err := StartTracker(ctx, nodes[n.Addr()], n.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		if _, all, alive := tr.Take(); !all || !alive {
			t.Fatalf("a new tracker vouches for something: all %v alive %v", all, alive)
		}
		trackers[n.Addr()] = tr
	}
	owner, _ := cl.Owner(int(keyspace.QueueSlot("orders")))
	ownerAddr := cl.Nodes[owner].Addr()
	if _, err := echomq.Enqueue(ctx, c, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	takeUntil(t, trackers[ownerAddr], func(slots []uint16, all, alive bool) bool {
		return !all && alive && slices.Equal(slots, []uint16{keyspace.QueueSlot("orders")})
	})
	for addr, tr := range trackers {
		if addr == ownerAddr {
			continue
		}
		if slots, all, _ := tr.Take(); all || len(slots) != 0 {
			t.Errorf("%s (not the owner) saw %v, all %v", addr, slots, all)
		}
	}
	conn, err := testcluster.Dial(ownerAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	takeUntil(t, trackers[ownerAddr], func(_ []uint16, all, alive bool) bool { return all && alive })
	if _, err := conn.Do("CLIENT", "KILL", "ID", strconv.FormatInt(trackers[ownerAddr].ID(), 10)); err != nil {
		t.Fatal(err)
	}
	takeUntil(t, trackers[ownerAddr], func(_ []uint16, all, alive bool) bool { return all && !alive })
	if _, all, alive := trackers[ownerAddr].Take(); !all || alive {
		t.Error("a lost tracker vouched for something after its loss")
	}
}

// The embedded demo server has no tracking: StartTracker says so, and the
// caller polls in full.
func TestTrackerRefusedByTheEmbeddedServer(t *testing.T) {
	env, err := demo.Start(demo.EnvOptions{Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if tr, err := StartTracker(ctx, env.Client, env.Addrs[0]); err == nil {
		tr.Close()
		t.Error("the embedded server accepted CLIENT TRACKING")
	}
}

// The snapshot reads what time alone changes: each queue's next lease
// deadline after now (when its expired count will move with no write) and
// its oldest pending score (so the age can move with the server clock).
func TestSnapshotReadsNextDeadlineAndOldestScore(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	for i := 0; i < 4; i++ {
		if _, err := echomq.Enqueue(ctx, c, "orders", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := echomq.Enqueue(ctx, c, "idle", []byte("x")); err != nil {
		t.Fatal(err)
	}
	var short int64 // the 1 ms lease's deadline
	for _, lease := range []time.Duration{time.Millisecond, time.Hour, 10 * time.Second} {
		j, _, err := echomq.Claim(ctx, c, "orders", lease)
		if err != nil {
			t.Fatal(err)
		}
		if lease == time.Millisecond {
			k, _ := keyspace.KeysOf("orders")
			d, err := c.Do(ctx, c.B().Zscore().Key(k.Active).Member(j.ID).Build()).AsFloat64()
			if err != nil {
				t.Fatal(err)
			}
			short = int64(d)
		}
	}
	vtest.Until(t, 30*time.Second, "the 1 ms lease to run out on the server's clock", func() bool {
		now, err := c.Do(ctx, c.B().Time().Build()).AsIntSlice()
		return err == nil && len(now) == 2 && now[0]*1000+now[1]/1000 > short
	})
	for _, detail := range []bool{false, true} {
		var d []string
		if detail {
			d = []string{"orders"}
		}
		_, s := pollAll(t, c, Options{}, d...)
		o, idle := s.Queue("orders"), s.Queue("idle")
		if in := o.NextDeadlineMs - o.ServerTimeMs; o.Expired != 1 || in <= 9000 || in > 10000 {
			t.Errorf("detail %v: orders expired %d, next deadline in %dms; want 1 and about 10s", detail, o.Expired, in)
		}
		if o.OldestScoreMs <= 0 || o.ServerTimeMs-o.OldestScoreMs != o.OldestPendingAgeMs {
			t.Errorf("detail %v: oldest score %d, age %d at %d", detail, o.OldestScoreMs, o.OldestPendingAgeMs, o.ServerTimeMs)
		}
		if idle.NextDeadlineMs != 0 || idle.OldestScoreMs <= 0 {
			t.Errorf("idle: next deadline %d, oldest score %d", idle.NextDeadlineMs, idle.OldestScoreMs)
		}
		if detail && (len(o.ActiveJobs()) != 3 || len(o.PendingJobs()) != 1 || len(o.Hist()) == 0) {
			t.Errorf("the detail moved: %d active, %d pending, %d buckets", len(o.ActiveJobs()), len(o.PendingJobs()), len(o.Hist()))
		}
	}
}
