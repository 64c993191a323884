package load

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// TestChangeDrivenAgreesWithFullAtScale: correctness at the scale the
// scale issue is about, in CI: 200,000 queues on 3 primaries, discovered
// (not named), read by a change-driven poller and by one that reads
// everything. After enqueues to 500 queues and claims from 200 whose
// leases then run out with no write, the change-driven poller agrees with
// the full one on every queue's pending, active and expired, while it
// reads changes: it carried most queues and read the written ones and the
// deadlines. (At a million queues every poll failed whole until a node's
// scripts went in rounds; this is the test that size would have needed.)
func TestChangeDrivenAgreesWithFullAtScale(t *testing.T) {
	const n = 200_000
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	now := float64(time.Now().UnixMilli())
	sd := vtest.NewSeeder(t, c)
	name := func(i int) string { return fmt.Sprintf("scale-%06d", i) }
	for i := 0; i < n; i++ {
		sd.Job(name(i), keyspace.TypePending, now-float64(i%1000))
	}
	sd.Flush()
	ctx := context.Background()
	opt := poller.Options{Timeout: 10 * time.Second, Sweep: time.Hour}
	change := poller.New(poller.ReadOnly(vtest.Client(t, cl)), opt)
	opt.Full = true
	full := poller.New(poller.ReadOnly(vtest.Client(t, cl)), opt)
	defer change.Close()
	defer full.Close()
	for _, p := range []*poller.Poller{change, full} {
		if err := p.DiscoverAll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	poll := func(p *poller.Poller) *model.Snapshot {
		s, err := p.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// tracking runs on every primary and a poll read changes alone
	var before *model.Snapshot
	vtest.Until(t, 2*time.Minute, "the change-driven poller to read changes with every primary tracked", func() bool {
		s := poll(change)
		before = s
		for _, nd := range s.Nodes {
			if nd.Role == model.RolePrimary && !nd.Tracking {
				return false
			}
		}
		return s.Poll.Read == "changes" && s.Queues.Len() == n
	})
	for i := 0; i < 500; i++ {
		if _, err := echomq.Enqueue(ctx, c, name(i*397%n), []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	claimed := make([]string, 0, 200)
	for i := 0; i < 200; i++ {
		q := name(i*1009%n + 1)
		if _, ok, err := echomq.Claim(ctx, c, q, 500*time.Millisecond); err != nil || !ok {
			t.Fatalf("claim from %s: %v %v", q, ok, err)
		}
		claimed = append(claimed, q)
	}
	// reads the claims as writes, learns their deadlines; its list is the
	// last one's with the queues whose figures changed put in: at most
	// 700 of its chunks are new (none when the invalidations come later),
	// the others the last list's, shared (a list copied whole: all new)
	if s := poll(change); s.Queues.Len() == before.Queues.Len() {
		chunks, fresh := 0, 0
		for i := 0; i < s.Queues.Len(); i += model.QueueChunk {
			chunks++
			if !s.Queues.Shares(before.Queues, i) {
				fresh++
			}
		}
		if fresh > 700 {
			t.Errorf("after 700 writes, %d of the list's %d chunks are new (read %s %v)", fresh, chunks, s.Poll.Read, s.Poll.Why)
		}
	}
	for _, q := range claimed {
		vtest.UntilExpired(t, c, q, 1)
	}
	want := poll(full)
	byName := map[string]*model.Queue{}
	for _, q := range want.Queues.All() {
		byName[q.Name] = q
	}
	var last *model.Snapshot
	diff := ""
	agrees := func() bool {
		last = poll(change)
		diff = ""
		if last.Queues.Len() != want.Queues.Len() {
			diff = fmt.Sprintf("%d queues, the full poller %d", last.Queues.Len(), want.Queues.Len())
			return false
		}
		for _, q := range last.Queues.All() {
			w := byName[q.Name]
			if w == nil || q.Pending != w.Pending || q.Active != w.Active || q.Expired != w.Expired || q.Stale {
				diff = fmt.Sprintf("%s: %d/%d/%d stale %v, the full poller %+v", q.Name, q.Pending, q.Active, q.Expired, q.Stale, w)
				return false
			}
		}
		return true
	}
	if !vtest.Within(time.Minute, agrees) {
		t.Fatalf("the change-driven poller never agreed with the full one: %s", diff)
	}
	if last.Poll.Read != "changes" || last.Poll.Carried < n/2 {
		t.Errorf("the agreeing poll read %s, carried %d of %d: not a change-driven poll", last.Poll.Read, last.Poll.Carried, n)
	}
	var expired int64
	for _, q := range last.Queues.All() {
		expired += q.Expired
	}
	if expired != int64(len(claimed)) {
		t.Errorf("%d expired leases, want %d", expired, len(claimed))
	}
}
