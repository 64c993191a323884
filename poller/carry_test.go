package poller

import (
	"testing"

	"github.com/echomq/emqtop/model"
)

// checkSums holds a snapshot's node sums and the poller's totals to the
// sums of its queues made whole, and a queue out of detail to have no job
// lists: a snapshot made by difference (assembleChanged) must equal one
// made by walking every queue. Every poll of the change-driven tests
// passes through it (pollOne).
func checkSums(t *testing.T, p *Poller, s *model.Snapshot) {
	t.Helper()
	type sums struct {
		queues                   int
		pending, active, expired int64
	}
	want := make([]sums, len(s.Nodes))
	var tot [model.Metrics]int64
	for _, q := range s.Queues.All() {
		tot[model.MPending] += q.Pending
		tot[model.MActive] += q.Active
		tot[model.MExpired] += q.Expired
		tot[model.MScheduled] += q.Scheduled
		if o := s.Topology.Owner[q.Slot]; o >= 0 {
			w := &want[o]
			w.queues++
			w.pending += q.Pending
			w.active += q.Active
			w.expired += q.Expired
		}
		if !q.Detail && q.Jobs != nil {
			t.Errorf("%s is not in detail but has job lists (made by difference: %v)", q.Name, p.last.touched != nil)
		}
	}
	for i, n := range s.Nodes {
		if got := (sums{n.Queues, n.Pending, n.Active, n.Expired}); got != want[i] {
			t.Errorf("%s: sums %+v, its queues sum to %+v (made by difference: %v)", n.Addr, got, want[i], p.last.touched != nil)
		}
	}
	if p.last.tot != tot {
		t.Errorf("totals %v, the queues sum to %v (made by difference: %v)", p.last.tot, tot, p.last.touched != nil)
	}
}

// checkDue holds that a change-driven poll's flags of the queues it read
// are those it listed, none left from an earlier poll: the flags' array is
// kept from poll to poll and only what a poll set is cleared.
func checkDue(t *testing.T, p *Poller) {
	t.Helper()
	if p.ch.due == nil {
		return
	}
	set := 0
	for _, d := range p.ch.due {
		if d {
			set++
		}
	}
	for _, i := range p.ch.dueList {
		if !p.ch.due[i] {
			t.Fatalf("queue %d is listed as read and not flagged", i)
		}
	}
	if set != len(p.ch.dueList) {
		t.Fatalf("%d queues flagged as read, %d listed: flags left from an earlier poll", set, len(p.ch.dueList))
	}
}
