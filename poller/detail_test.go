package poller

import (
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/model"
)

// The operator moves the selection and widens the timeline: the queue in
// detail is read with its jobs and lease histogram, the one before loses
// them, and the plan is the same plan (a replan reads every queue's name:
// 1.3 s of CPU a move at a million queues), on a cluster of three.
func TestDetailMovesWithoutAReplan(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	fill(t, c, map[string]want{"orders": {active: 3}, "fills": {pending: 2}, "emails": {pending: 1}})
	p, s := pollAll(t, c, Options{})
	if s.Queue("orders").ActiveJobs() != nil {
		t.Fatal("orders read in detail before it was asked for")
	}
	plan := func() []*batch {
		var out []*batch
		for pi := range p.plans {
			if len(p.plans[pi].batches) > 0 {
				out = append(out, &p.plans[pi].batches[0])
			}
		}
		return out
	}
	before := plan()
	poll := func(what string, ok func(s *model.Snapshot) bool) *model.Snapshot {
		t.Helper()
		var s *model.Snapshot
		if !vtest.Within(10*time.Second, func() bool { s = pollOne(t, p); return ok(s) }) {
			t.Fatalf("%s: never read (%v)", what, s.Poll.Why)
		}
		return s
	}
	p.SetDetail("orders")
	s = poll("orders in detail", func(s *model.Snapshot) bool { return len(s.Queue("orders").ActiveJobs()) == 3 })
	if h := s.Queue("orders").Hist(); len(h) == 0 || h[len(h)-1] != 3 {
		t.Errorf("the leases an hour out lie past a minute's window: %v", h)
	}
	p.SetWindow(2 * time.Hour) // the scripts' edges change
	s = poll("the wider window", func(s *model.Snapshot) bool {
		h := s.Queue("orders").Hist()
		return len(h) > 0 && h[len(h)-1] == 0
	})
	var in int64
	for _, n := range s.Queue("orders").Hist() {
		in += n
	}
	if in != 3 {
		t.Errorf("two hours' window: %v holds %d leases, want 3", s.Queue("orders").Hist(), in)
	}
	p.SetDetail("fills")
	s = poll("fills in detail", func(s *model.Snapshot) bool { return len(s.Queue("fills").PendingJobs()) == 2 })
	if q := s.Queue("orders"); q.ActiveJobs() != nil || q.Detail {
		t.Errorf("orders keeps its jobs (%d) after the selection moved", len(q.ActiveJobs()))
	}
	after := plan()
	if len(after) != len(before) || len(before) == 0 {
		t.Fatalf("%d nodes planned, then %d", len(before), len(after))
	}
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("node %d was planned anew when the detail or the window moved", i)
		}
	}
}
