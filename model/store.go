package model

import (
	"cmp"
	"slices"
	"sync"
)

// SlabQueues is how many queues a QueueStore slab holds.
const SlabQueues = 1024

// QueueStore hands out queues from slabs, arrays of SlabQueues, instead of
// one object a queue. The collector marks a million queues made one by
// one, each somewhere else on the heap and listed in another order, in
// about 600 ms of CPU; the same queues in slabs in 60 (issue 24). A slab
// lives while any of its queues does: Compact moves the queues of slabs
// mostly let go into new ones, so that what slabs hold beyond the live
// queues stays under a third of them. Safe for concurrent use.
type QueueStore struct {
	mu    sync.Mutex
	cur   []Queue // the current slab's queues not yet handed out
	id    uint32  // the current slab's (0: none yet)
	made  int     // queues handed out since the last walk
	again bool    // the last walk left sparse slabs for the next
	// budget is the most queues a Compact moves (0: moveBudget)
	budget int
}

// Take fills qs with new zero queues. Set their fields one by one: a
// queue assigned whole loses the mark of its slab.
func (s *QueueStore) Take(qs []*Queue) { s.take(qs, true) }

// take is Take; new says whether the queues count as read anew (a queue
// Compact moves does not).
func (s *QueueStore) take(qs []*Queue, new bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range qs {
		if len(s.cur) == 0 {
			s.id++
			s.cur = make([]Queue, SlabQueues)
			for k := range s.cur {
				s.cur[k].slab = s.id
			}
		}
		qs[i], s.cur = &s.cur[0], s.cur[1:]
	}
	if new {
		s.made += len(qs)
	}
}

// Copy is a copy of q taken from the store.
func (s *QueueStore) Copy(q *Queue) *Queue {
	var c [1]*Queue
	s.Take(c[:])
	c[0].copyOf(q)
	return c[0]
}

// copyOf makes q a copy of src, q's slab kept.
func (q *Queue) copyOf(src *Queue) {
	slab := q.slab
	*q = *src
	q.slab = slab
}

// Compact is l with the queues of sparse slabs (under two thirds of them
// in l) moved to new ones, and of none (made outside the store); l itself
// when fewer than a quarter of l's length (and four slabs) were handed out
// since the last walk. It walks l once, then moves what it must, the
// sparsest slabs first and at most moveBudget queues a call (a million
// queues read anew at random all cross the line at once: 700,000 moved
// in one poll were 176 ms); what is left waits for the next call, which
// walks again. Call it with the list that stays, as its queues' pointers
// change. A moved queue is a copy: a list holding the old one keeps it.
func (s *QueueStore) Compact(l QueueList) QueueList {
	s.mu.Lock()
	due := s.again || s.made > max(l.Len()/4, 4*SlabQueues)
	var live []int32
	var current uint32
	if due {
		s.made, s.again = 0, false
		live, current = make([]int32, s.id+1), s.id
	}
	s.mu.Unlock()
	if !due {
		return l
	}
	for _, q := range l.All() {
		if q.slab <= current {
			live[q.slab]++
		}
	}
	var sparse []uint32
	for id := uint32(1); id < current; id++ {
		if n := live[id]; n > 0 && n*3 < SlabQueues*2 {
			sparse = append(sparse, id)
		}
	}
	slices.SortFunc(sparse, func(a, b uint32) int { return cmp.Compare(live[a], live[b]) })
	budget := moveBudget
	if s.budget > 0 {
		budget = s.budget
	}
	move := make([]bool, current+1)
	budget -= int(live[0])
	for k, id := range sparse {
		if budget < int(live[id]) && k > 0 {
			s.mu.Lock()
			s.again = true
			s.mu.Unlock()
			break
		}
		move[id], budget = true, budget-int(live[id])
	}
	var idx []int
	var old []*Queue
	for i, q := range l.All() {
		if q.slab == 0 || (q.slab <= current && move[q.slab]) {
			idx, old = append(idx, i), append(old, q)
		}
	}
	if len(idx) == 0 {
		return l
	}
	moved := make([]*Queue, len(old))
	s.take(moved, false)
	for k, q := range old {
		moved[k].copyOf(q)
	}
	return l.With(idx, moved)
}

// moveBudget is the most queues Compact moves in a call (but a slab's
// whole, and the queues of no slab).
const moveBudget = 128 * SlabQueues
