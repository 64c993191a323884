package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
// least two thirds full but the newest, and a list it left alone is the
// same list.
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
		} else if slab != s.id && k*3 < SlabQueues*2 {
			t.Errorf("slab %d holds %d of %d", slab, k, SlabQueues)
		}
	}
}

// Compact moves at most its budget of queues a call, the sparsest slabs
// first, and the next call walks again for the rest, whatever was made
// since.
func TestQueueStoreBudget(t *testing.T) {
	s := QueueStore{budget: 400}
	const n = 6 * SlabQueues
	all := make([]*Queue, n)
	s.Take(all)
	l := ListOf(all...)
	l = s.Compact(l)
	// slab k (1..6) keeps k*10% of its queues; the last three stay
	var idx []int
	var fresh []*Queue
	for i := range n {
		slab := i / SlabQueues
		if slab < 3 && i%SlabQueues >= (slab+1)*SlabQueues/10 {
			idx, fresh = append(idx, i), append(fresh, s.Copy(all[i]))
		}
	}
	for range 4 * SlabQueues { // enough made for a walk
		s.Copy(all[0])
	}
	l = l.With(idx, fresh)
	moves := func(l, m QueueList) (per [3]int) {
		for i, q := range m.All() {
			if q != l.At(i) {
				per[i/SlabQueues]++
			}
		}
		return per
	}
	m := s.Compact(l)
	// the budget, 400: slab 1 (102 kept) and 2 (204), not slab 3 (307)
	// past it
	if got := moves(l, m); got != [3]int{102, 204, 0} || !s.again {
		t.Fatalf("first call moved %v (again %v), want the two sparsest slabs' [102 204 0]", got, s.again)
	}
	// then slab 3, and not the slab of 411 of the fresh ones past it; then
	// that one alone, over the budget (a slab is moved whole)
	m2 := s.Compact(m)
	if got := moves(m, m2); got != [3]int{0, 0, 307} || !s.again {
		t.Errorf("second call moved %v (again %v), want slab 3's 307", got, s.again)
	}
	m3 := s.Compact(m2)
	if got := moves(m2, m3); got != [3]int{0, 0, 411} || s.again {
		t.Errorf("third call moved %v (again %v), want the fresh slab's 411, and done", got, s.again)
	}
	if m4 := s.Compact(m3); moves(m3, m4) != [3]int{} {
		t.Error("a fourth call with nothing made moved queues")
	}
}

// BenchmarkQueueStoreCompact: a list of a million queues of which 500,000
// were read anew one by one, at random (every slab of the first read past
// the line at once), compacted: the poll that walks the list pays this
// once in a quarter of the list's length of new readings, and while slabs
// are left for the next call.
//
//	go test ./model -run x -bench QueueStoreCompact -benchtime 5x
func BenchmarkQueueStoreCompact(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		b.StopTimer()
		var s QueueStore
		all := make([]*Queue, n)
		s.Take(all)
		l := ListOf(all...)
		s.Compact(l) // the first walk
		idx := rand.New(rand.NewPCG(1, 2)).Perm(n)[:500_000]
		slices.Sort(idx)
		fresh := make([]*Queue, len(idx))
		for k := range fresh {
			fresh[k] = s.Copy(l.At(idx[k]))
		}
		l = l.With(idx, fresh)
		b.StartTimer()
		out := s.Compact(l)
		b.StopTimer()
		moved := 0
		for i, q := range out.All() {
			if q != l.At(i) {
				moved++
			}
		}
		b.ReportMetric(float64(moved), "moved")
		b.StartTimer()
	}
}
