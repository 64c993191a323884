package model

import (
	"fmt"
	"testing"
)

// slabsOf counts the queues of l in each slab.
func slabsOf(l QueueList) map[uint32]int {
	out := map[uint32]int{}
	for _, q := range l.All() {
		out[q.slab]++
	}
	return out
}

// Queues taken side by side share a slab, a copy takes a slot of its own
// and keeps every field; Compact leaves a list alone until a quarter of
// it was made anew, then moves the queues of slabs mostly let go (and of
// none) to new ones: the same queues at the same places, in slabs at
// least three quarters full but the newest, and a list it left alone is
// the same list.
func TestQueueStore(t *testing.T) {
	var s QueueStore
	qs := make([]*Queue, 3)
	s.Take(qs)
	if qs[0].slab == 0 || qs[0].slab != qs[2].slab || qs[1].Name != "" || qs[1].Pending != 0 || qs[1].Past.Known() {
		t.Fatalf("three taken: slabs %d %d, %+v", qs[0].slab, qs[2].slab, qs[1])
	}
	qs[1].Name, qs[1].Pending = "orders", 7
	if c := s.Copy(qs[1]); c == qs[1] || c.Name != "orders" || c.Pending != 7 || c.slab == 0 {
		t.Errorf("copy: %+v", c)
	}

	s = QueueStore{} // slabs 1 to 8 the list's
	const n = 8 * SlabQueues
	var b QueueListBuilder
	all := make([]*Queue, n)
	s.Take(all)
	for i, q := range all {
		q.Name, q.Pending = fmt.Sprintf("q-%05d", i), int64(i)
		b.Add(q)
	}
	l := b.List()
	l = s.Compact(l) // the first walk: every slab full
	if got := s.Compact(l); got.chunks[0] == nil || &got.chunks[0][0] != &l.chunks[0][0] {
		t.Fatal("a list walked with nothing made since was made again")
	}
	// nine in ten of each slab's queues read anew, one a slab of its own
	// (a poll's few); and one queue made outside the store
	var idx []int
	var fresh []*Queue
	for i := range n {
		if i%10 != 0 || i == 5 {
			q := s.Copy(&Queue{})
			if i == 5 {
				q = &Queue{}
			}
			q.Name, q.Pending = fmt.Sprintf("q-%05d", i), int64(i)
			idx, fresh = append(idx, i), append(fresh, q)
		}
	}
	l = l.With(idx, fresh)
	before := l.Slice()
	l = s.Compact(l)
	moved := 0
	for i, q := range l.All() {
		if q.Name != fmt.Sprintf("q-%05d", i) || q.Pending != int64(i) {
			t.Fatalf("place %d holds %s %d", i, q.Name, q.Pending)
		}
		if q != before[i] {
			moved++
		}
	}
	if want := (n+9)/10 + 1; moved != want {
		t.Errorf("%d queues moved, want the %d of the sparse slab and the one of none", moved, want)
	}
	for slab, k := range slabsOf(l) {
		if slab == 0 {
			t.Errorf("%d queues of no slab left", k)
		} else if slab != s.id && k*4 < SlabQueues*3 {
			t.Errorf("slab %d holds %d of %d", slab, k, SlabQueues)
		}
	}
}
