package poller

import (
	"fmt"
	"slices"
	"testing"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// A plan made again (a queue came) keeps what was learnt of each batch
// whose slot, owner, queues and detail are the same, and of no other.
func TestKeepSettledCarriesOnlyTheSameBatches(t *testing.T) {
	b := func(slot uint16, owner string, settled bool, deadline int64, qs ...string) batch {
		return batch{slot: slot, owner: owner, queues: qs, detail: make([]bool, len(qs)), settled: settled, deadline: deadline}
	}
	old := []nodePlan{{addr: "a:1", batches: []batch{
		b(1, "a:1", true, 500, "q1", "q2"),
		b(2, "a:1", true, 0, "q3"),
		b(3, "a:1", false, 0, "q4"),
		b(4, "a:1", true, 0, "q5"),
		b(5, "a:1", true, 0, "q6"),
	}}}
	fresh := []nodePlan{
		{addr: "a:1", batches: []batch{
			b(1, "a:1", false, 0, "q1", "q2"),  // the same: carried
			b(2, "a:1", false, 0, "q3", "q3a"), // a queue more: learnt again
			b(3, "a:1", false, 0, "q4"),        // not settled before
			b(5, "a:1", false, 0, "q6"),        // the same, detail asked below
		}},
		{addr: "b:1", batches: []batch{b(4, "b:1", false, 0, "q5")}}, // moved to another node
	}
	fresh[0].batches[3].detail = []bool{true}
	keepSettled(old, fresh)
	want := []struct {
		settled  bool
		deadline int64
	}{{true, 500}, {false, 0}, {false, 0}, {false, 0}}
	for k, w := range want {
		if got := fresh[0].batches[k]; got.settled != w.settled || got.deadline != w.deadline {
			t.Errorf("slot %d: settled %v deadline %d, want %v %d", got.slot, got.settled, got.deadline, w.settled, w.deadline)
		}
	}
	if fresh[1].batches[0].settled {
		t.Errorf("slot 4 on another node: carried as settled")
	}
}

// Names a pass adds go into the last list by a search each, and the list
// is the one made whole from the nodes' sets, whatever was added where;
// the list is made whole instead when anything else changed: a bump that
// is not an addition, a name found on a node that does not own its slot,
// another topology, a list kept unsure.
func TestAddedNamesGoIntoTheLastList(t *testing.T) {
	a, b := "127.0.0.1:7000", "127.0.0.1:7001"
	topo := model.NewTopology(true, []model.Node{
		{ID: "a", Addr: a, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 0, Hi: 8191}}},
		{ID: "b", Addr: b, Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 8192, Hi: 16383}}},
	})
	ownerOf := func(q string) string { return topo.OwnerOf(keyspace.QueueSlot(q)).Addr }
	p := New(nil, Options{})
	var known []string
	for i := range 400 {
		known = append(known, fmt.Sprintf("t-%03d", 2*i)) // the odd ones come later
	}
	byNode := map[string][]string{}
	for _, q := range known {
		byNode[ownerOf(q)] = append(byNode[ownerOf(q)], q)
	}
	for _, addr := range []string{a, b} {
		p.nodes[addr] = &nodeState{known: p.nameSet(byNode[addr]...), passSeen: p.nameSet()}
	}
	p.slotsOf(p.queues(topo)) // as a plan of it does
	// a pass finds some new names, as scanned does
	add := func(names ...string) {
		p.names.mu.Lock()
		defer p.names.mu.Unlock()
		for _, q := range names {
			st := p.nodes[ownerOf(q)]
			st.passSeen.add(p.names.intern(q))
			p.names.added = append(p.names.added, q)
			p.names.addedOn = append(p.names.addedOn, ownerOf(q))
			p.qver++
		}
	}
	add("t-001", "t-799", "a-first", "t-401", "t-401", "z-last")
	want := slices.Sorted(slices.Values(append(slices.Clone(known), "t-001", "t-799", "a-first", "t-401", "z-last")))
	got := p.queues(topo)
	if !slices.Equal(got, want) {
		t.Fatalf("the list after the additions: %d names, want %d", len(got), len(want))
	}
	// and its slots are kept with it, each its name's (a list made whole
	// keeps none: the names went in)
	slots := p.slots.of(got)
	if len(slots) != len(got) {
		t.Fatalf("the new list's slots: %d kept, want %d", len(slots), len(got))
	}
	for i, q := range got {
		if slots[i] != keyspace.QueueSlot(q) {
			t.Fatalf("%s: slot %d kept, its slot is %d", q, slots[i], keyspace.QueueSlot(q))
		}
	}

	// anything else: made whole
	cases := []struct {
		what  string
		setup func()
	}{
		{"a bump that is not an addition", func() { add("t-003"); p.qver++ }},
		{"a name found on the node that does not own it", func() {
			add("t-005")
			p.names.addedOn[0] = map[string]string{a: b, b: a}[p.names.addedOn[0]]
		}},
		{"a list kept unsure", func() { add("t-007"); p.qunsure = true }},
	}
	for _, c := range cases {
		c.setup()
		p.names.mu.Lock()
		_, ok := p.withAdded(topo, p.names.added, p.names.addedOn)
		p.names.mu.Unlock()
		if ok {
			t.Errorf("%s: put in, want the list made whole", c.what)
		}
		p.qunsure = false
		p.queues(topo) // made whole: the next case starts from it
	}
	add("t-009")
	other := model.NewTopology(true, topo.Nodes)
	p.names.mu.Lock()
	_, ok := p.withAdded(other, p.names.added, p.names.addedOn)
	p.names.mu.Unlock()
	if ok {
		t.Errorf("another topology: put in, want the list made whole")
	}
}
