package model

import (
	"cmp"
	"slices"
)

// recStore hands out the history's logs of 4, 8 or 16 records from slabs,
// arrays of recSlab records, not one object a log. After an hour of 1,000
// queues written a second, a million series each had a log of its own: a
// million small objects the collector marked at every collection, which
// doubled its cost (BenchmarkCollectMillion: 41 ms after two minutes, 90
// after the hour; with the logs in slabs, 49). A slab lives while a series
// or a snapshot's past holds one of its logs; so that slabs mostly let go
// do not stay for one quiet series each, each slab's logs held by a series
// are counted, and once enough were let go the series of the sparse slabs
// are moved to new ones (compactLogs), as QueueStore.Compact does for
// queues. A moved log is a copy: a past already taken keeps the old one,
// never written again. Not safe for concurrent use (the History is not).
type recStore struct {
	cur   [recClasses][]rec // each class's current slab, what is left of it
	curID [recClasses]uint32
	// by slab id (0: no slab): the logs of it a series holds, and its class
	live  []int32
	class []uint8
	held  int  // logs held in all
	let   int  // logs let go since the last walk
	again bool // the last walk left sparse slabs for the next
	// budget is the most logs a walk moves (0: recMoveBudget)
	budget int
}

const (
	recClasses    = 3    // logs of 4, 8 and 16 records
	recSlab       = 4096 // records a slab (128 KB)
	recMoveBudget = 1 << 17
)

// recClass is the class of a log of room for c records, and its room: the
// smallest class that holds c, or -1 over the largest.
func recClass(c int) (class, room int) {
	for k, room := 0, 4; k < recClasses; k, room = k+1, room*2 {
		if c <= room {
			return k, room
		}
	}
	return -1, c
}

// take is an empty log with room for c records, and its slab (0: made
// alone, over the largest class).
func (r *recStore) take(c int) ([]rec, uint32) {
	k, room := recClass(c)
	if k < 0 {
		return make([]rec, 0, c), 0
	}
	if len(r.cur[k]) < room {
		if len(r.live) == 0 {
			r.live, r.class = make([]int32, 1, 64), make([]uint8, 1, 64)
		}
		r.cur[k], r.curID[k] = make([]rec, recSlab), uint32(len(r.live))
		r.live, r.class = append(r.live, 0), append(r.class, uint8(k))
	}
	log := r.cur[k][:0:room]
	r.cur[k] = r.cur[k][room:]
	r.live[r.curID[k]]++
	r.held++
	return log, r.curID[k]
}

// letGo counts a log of slab id as no series' any more.
func (r *recStore) letGo(id uint32) {
	if id == 0 {
		return
	}
	r.live[id]--
	r.held--
	r.let++
}

// sparse is the slabs to empty now: under two thirds held, not a current
// one, the sparsest first, as many as the budget moves (nil when not due:
// fewer logs let go since the last walk than an eighth of those held, and
// at least a slab's worth).
func (r *recStore) sparse() []bool {
	if !r.again && r.let < max(r.held/8, recSlab) {
		return nil
	}
	r.let, r.again = 0, false
	var ids []uint32
	for id := 1; id < len(r.live); id++ {
		if n := r.live[id]; n > 0 && int(n)*3 < recSlab/(4<<r.class[id])*2 && uint32(id) != r.curID[r.class[id]] {
			ids = append(ids, uint32(id))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.SortFunc(ids, func(a, b uint32) int { return cmp.Compare(r.live[a], r.live[b]) })
	budget := recMoveBudget
	if r.budget > 0 {
		budget = r.budget
	}
	move := make([]bool, len(r.live))
	for k, id := range ids {
		if budget < int(r.live[id]) && k > 0 {
			r.again = true
			break
		}
		move[id], budget = true, budget-int(r.live[id])
	}
	return move
}

// compactLogs moves the series whose logs lie in sparse slabs to new ones,
// when enough logs were let go since the last walk: a walk of the series
// (BenchmarkLogWalk: a million, 7,500 moved, in 1.1 ms) once in a long
// while.
func (h *History) compactLogs() {
	move := h.recs.sparse()
	if move == nil {
		return
	}
	for i := range h.s {
		s := &h.s[i]
		if s.slab == 0 || !move[s.slab] {
			continue
		}
		log, id := h.recs.take(cap(s.log))
		h.recs.letGo(s.slab)
		s.log, s.slab = append(log, s.log...), id
	}
	h.recs.let = 0 // a move lets a log go and takes one: no cause for a walk
}

// first is room for a series' first record, taken from a slab of them.
// Most series of a million queues never change after it: each its own
// 32-byte object, put in the order the polls read them, then pointed to
// from queues in name order, was a cache miss to mark at every
// collection, twice (the series and the queue's Past); a pointer into a
// slab marks the slab, which is marked already. Its cap is 1, so the next
// record goes to an array of the series' own (compact) and never into its
// neighbour's; a slab lives while one of its records does, which holds
// at most what the records took one by one.
func (h *History) first() []rec {
	if len(h.firsts) == 0 {
		h.firsts = make([]rec, min(firstsSlab, max(16, len(h.s)/4)))
	}
	r := h.firsts[:0:1]
	h.firsts = h.firsts[1:]
	return r
}

// firstsSlab is the most records a slab of first records holds (128 KB).
const firstsSlab = 4096
