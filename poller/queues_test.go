package poller

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// The queue list a poll reads (Poller.queues): what discovery found, kept
// exactly through failovers, slot moves and a topology that lags.

// The set of queues to poll after a failover, exactly: the promoted
// replica, not yet walked, has the queues of its slots that its old
// primary held; once walked, its own pass alone counts.
func TestQueuesOfANodeNotYetWalked(t *testing.T) {
	a, b := "127.0.0.1:7000", "127.0.0.1:7001"
	topo := model.NewTopology(true, []model.Node{
		{ID: "a", Addr: a, Role: model.RoleFailed, Health: "fail"},
		{ID: "b", Addr: b, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 0, Hi: 16383}}},
	})
	p := New(nil, Options{})
	p.nodes[a] = &nodeState{known: p.nameSet("orders", "fills"), passSeen: p.nameSet()}
	p.nodes[b] = &nodeState{passSeen: p.nameSet("orders")} // its first pass under way
	if got := strings.Join(p.queues(topo), ","); got != "fills,orders" {
		t.Errorf("before b is walked: %s, want fills,orders", got)
	}
	p.nodes[b].known, p.nodes[b].passSeen = p.nameSet("orders"), p.nameSet()
	p.qver++
	if got := strings.Join(p.queues(topo), ","); got != "orders" {
		t.Errorf("once b is walked: %s, want orders (fills is gone)", got)
	}
}

// A queue of a slot that moved is kept until its new owner has been
// walked since the move: the old owner's next pass no longer finds it, and
// it vanished from the list until the new owner's (TestChangeDrivenPoll
// met a snapshot without the queue it had just moved).
func TestQueuesOfAMovedSlot(t *testing.T) {
	a, b := "127.0.0.1:7000", "127.0.0.1:7001"
	slot := keyspace.QueueSlot("q-7")
	ranges := []model.Range{{Lo: 0, Hi: slot - 1}, {Lo: slot + 1, Hi: 16383}}
	topo := model.NewTopology(true, []model.Node{
		{ID: "a", Addr: a, Role: model.RolePrimary, Health: "online", Slots: ranges},
		{ID: "b", Addr: b, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: slot, Hi: slot}}},
	})
	p := New(nil, Options{})
	walked := time.Now()
	p.nodes[a] = &nodeState{known: p.nameSet("fills"), knownAt: walked.Add(time.Second), passSeen: p.nameSet()}
	p.nodes[b] = &nodeState{known: p.nameSet(), knownAt: walked, passSeen: p.nameSet()}
	p.polled = []string{"fills", "q-7"}
	p.movedAt[slot] = walked.Add(time.Millisecond) // after b's last pass began
	if got := strings.Join(p.queues(topo), ","); got != "fills,q-7" {
		t.Errorf("before b is walked again: %s, want fills,q-7", got)
	}
	p.nodes[b].knownAt = walked.Add(2 * time.Second) // b walked since, without q-7: gone for good
	p.qver++
	if got := strings.Join(p.queues(topo), ","); got != "fills" {
		t.Errorf("once b is walked: %s, want fills", got)
	}
}

// A pass that ends without a queue asks for the topology; until one is
// read, the queue stays listed (its slot may have moved, the topology in
// hand saying the old owner still has it, which made the queue vanish until
// the new owner's next pass). Once a topology has been read since, with no
// move in it, the queue is gone: the list is not kept from before.
func TestQueuesWhileTheTopologyLags(t *testing.T) {
	a, b := "127.0.0.1:7000", "127.0.0.1:7001"
	topo := model.NewTopology(true, []model.Node{
		{ID: "a", Addr: a, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 0, Hi: 8191}}},
		{ID: "b", Addr: b, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 8192, Hi: 16383}}},
	})
	p := New(nil, Options{})
	now := time.Now()
	p.nodes[a] = &nodeState{known: p.nameSet("fills"), knownAt: now, passSeen: p.nameSet(), shrankAt: now}
	p.nodes[b] = &nodeState{known: p.nameSet(), knownAt: now, passSeen: p.nameSet()}
	p.polled = []string{"fills", "q-7"}
	p.topoAt = now.Add(-time.Second)
	if got := strings.Join(p.queues(topo), ","); got != "fills,q-7" {
		t.Errorf("before a topology is read again: %s, want fills,q-7", got)
	}
	ver := p.qver
	if got := strings.Join(p.queues(topo), ","); got != "fills,q-7" || p.qver != ver {
		t.Errorf("no topology read yet: %s, version %d then %d (the list and the plan made again for nothing)", got, ver, p.qver)
	}
	p.topoAt = now.Add(time.Millisecond) // read since, the same: q-7 was deleted
	if got := strings.Join(p.queues(topo), ","); got != "fills" {
		t.Errorf("once a topology without a move is read: %s, want fills", got)
	}
	if p.qver == ver { // the plan is kept while the version is: its batches index the list
		t.Error("the list changed and its version did not: the plan made for the last list would be kept")
	}
}

// discoveryOf says where discovery stands on queue q: each node's passes,
// whether its last whole pass and its current one found q, the slot's
// owner and when it last moved, and whether the last poll listed q.
func discoveryOf(p *Poller, q string) string {
	slot := keyspace.QueueSlot(q)
	p.mu.Lock()
	moved, topo := p.movedAt[slot], p.topo
	polled := slices.Contains(p.polled, q)
	p.mu.Unlock()
	out := []string{fmt.Sprintf("slot %d moved %s ago, listed at the last poll %v", slot, time.Since(moved).Round(time.Millisecond), polled)}
	if o := topo.OwnerOf(slot); o != nil {
		out = append(out, "owner "+o.Addr)
	}
	for addr, st := range p.nodes {
		out = append(out, fmt.Sprintf("%s: %d passes, cursor %q, known %v (pass started %s ago), this pass %v, timed out %v, err %q",
			addr, st.passes, st.cursor, p.inSet(st.known, q), time.Since(st.knownAt).Round(time.Millisecond), p.inSet(st.passSeen, q), st.timedOut, st.err))
	}
	return strings.Join(out, "; ")
}

// nameSet is a node's set of the names qs, as a pass makes it.
func (p *Poller) nameSet(qs ...string) *idSet {
	p.names.mu.Lock()
	defer p.names.mu.Unlock()
	s := &idSet{}
	for _, q := range qs {
		s.add(p.names.intern(q))
	}
	return s
}

// inSet reports whether a node's set holds the name q.
func (p *Poller) inSet(s *idSet, q string) bool {
	p.names.mu.Lock()
	defer p.names.mu.Unlock()
	if p.names.t == nil {
		return false
	}
	id, ok := p.names.t.ID(q)
	return ok && s.has(id)
}
