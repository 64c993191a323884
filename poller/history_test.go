package poller

import (
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// On a real cluster: a queue being drained is shrinking, with an ETA while
// jobs are left that is gone once it is empty; a node that does not answer
// leaves its queue a gap in the past, not a zero; the totals have a gap
// too (they would be partial).
func TestHistoryOnACluster(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, NodeTimeout: 30 * time.Second})
	c := vtest.Client(t, cl)
	const q, jobs, batch = "orders", 1500, 50
	fill(t, c, map[string]want{q: {pending: jobs + 1}})
	// one job stays active, so the queue keeps keys once its pending is gone
	if _, _, err := echomq.Claim(ctx, c, q, time.Hour); err != nil {
		t.Fatal(err)
	}
	p := New(c, Options{Timeout: 2 * time.Second})
	defer p.Close()
	p.SetDetail(q)
	if err := p.DiscoverAll(ctx); err != nil {
		t.Fatal(err)
	}
	var etas, shrinking int
	start := time.Now()
	var s *model.Snapshot
	for i := 0; ; i++ {
		if _, _, err := echomq.DrainStep(ctx, c, q, batch); err != nil {
			t.Fatal(err)
		}
		s = pollN(t, p, 1)
		qs := s.Queue(q)
		if qs == nil {
			t.Fatalf("poll %d: %s is gone", i, q)
		}
		tr := s.Trend(qs)
		if tr.Direction == model.Shrinking {
			shrinking++
		}
		if tr.EmptyIn > 0 {
			etas++
		}
		if qs.Pending == 0 {
			break
		}
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 500 * time.Millisecond)))
	}
	if shrinking == 0 || etas == 0 {
		t.Errorf("a drain of %d jobs over %v: shrinking at %d polls, an ETA at %d", jobs, time.Since(start).Round(time.Second), shrinking, etas)
	}
	if tr := s.Trend(s.Queue(q)); tr.EmptyIn != 0 {
		t.Errorf("empty, yet an ETA of %v", tr.EmptyIn)
	}
	owner, err := cl.Owner(int(keyspace.QueueSlot(q)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Pause(owner); err != nil {
		t.Fatal(err)
	}
	s = pollN(t, p, 1)
	cl.Resume(owner)
	past, ok := s.Series(s.Queue(q))
	if !ok || len(past.Fine) < 2 {
		t.Fatal("no past copied out for the detailed queue")
	}
	last, before := past.Fine[len(past.Fine)-1], past.Fine[len(past.Fine)-2]
	if last.V[model.MPending] != model.Gap || before.V[model.MPending] != 0 {
		t.Errorf("a node outage: the last samples are %d then %d, want 0 then a gap", before.V[model.MPending], last.V[model.MPending])
	}
	if tot, ok := p.totals.Series("total"); !ok || tot.Fine[len(tot.Fine)-1].V[model.MPending] != model.Gap {
		t.Errorf("the totals while a node is down are not a gap: %+v", tot.Fine[len(tot.Fine)-1])
	}
}
