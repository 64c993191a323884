package model

import (
	"cmp"
	"slices"
	"strings"
)

// The queue list's order kept between snapshots (the scale issue): a poll
// of a million queues changes a few thousand of them, and the snapshot
// shares every other queue with the last one (the same *Queue). A new
// order is the last one with the changed queues taken out, sorted alone
// and merged back in: O(queues) moves of integers and O(changed · log)
// comparisons, where a whole sort of a million rows costs ~0.5 s.
//
// Not for every sort: the oldest pending job's age and the growth move with
// the clock for queues nothing changed, so those sorts are made whole.

// stableKey reports whether a sort by k depends on a queue's reading
// alone, so a queue nothing changed keeps its place.
func stableKey(k SortKey) bool { return k != SortOldest && k != SortGrowth }

// reorderMost: past this share of changed queues, a whole sort is cheaper.
const reorderMost = 0.25

// change is how a snapshot's queues stand to the last one's (both sorted
// by name). In the steady state of a change-driven poll the names are the
// same and at the same places (same): the change is then the few queues
// read anew, with no array over every queue.
type change struct {
	from *Fold
	same bool // the same names at the same places: a queue's index is the last one's
	// slotsSame: no name read anew sits on another slot (a queue's slot is
	// its name's; a fake snapshot may say otherwise)
	slotsSame bool
	at        []int32 // when !same: where each of the last one's names is now, -1: gone
	changed   []int   // the queues now that are new readings, ascending
	replaced  []int   // the last one's queues not carried (gone, or read anew), ascending
	fresh     bitset  // changed, as bits over the queues now
}

// where is the place now of the last one's queue j (by name), -1: gone.
func (c *change) where(j int) int {
	if c.same {
		return j
	}
	return int(c.at[j])
}

// bitset is a set of small integers.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) add(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// changeFrom walks prev's queues and s's side by side: a queue carried is
// the same pointer, one compare and no read of it. ok is false when more
// than reorderMost of the queues changed, or a list is not by name.
func changeFrom(prev *Fold, s *Snapshot, byName bool) (change, bool) {
	if prev == nil || !byName || !prev.byName {
		return change{}, false
	}
	qs, pqs := s.Queues, prev.Snap.Queues
	ch := change{from: prev, same: true, slotsSame: true}
	// at is made at the first name that moves: every name before it sat
	// where it sits now
	moved := func(j int) {
		ch.same = false
		ch.at = make([]int32, pqs.Len())
		for k := range j {
			ch.at[k] = int32(k)
		}
	}
	carried := func(lo, hi int) bool { // a shared chunk: its queues where they were
		for k := lo; !ch.same && k < hi; k++ {
			ch.at[k] = int32(k)
		}
		return true
	}
	complete := WalkByName(qs, pqs, carried, func(i, j int) bool {
		if ch.same && i != j { // the first name in one list alone
			moved(max(i, j))
		}
		if i >= 0 && j >= 0 && qs.At(i) == pqs.At(j) { // carried
			if !ch.same {
				ch.at[j] = int32(i)
			}
			return true
		}
		if j >= 0 {
			ch.replaced = append(ch.replaced, j)
			if !ch.same {
				ch.at[j] = int32(i) // -1: gone
			}
		}
		if i >= 0 {
			ch.changed = append(ch.changed, i)
			if j >= 0 && qs.At(i).Slot != pqs.At(j).Slot {
				ch.slotsSame = false
			}
		}
		return float64(len(ch.changed)) <= reorderMost*float64(qs.Len())
	})
	if !complete {
		return change{}, false
	}
	return ch, true
}

// freshSet is the places read anew as a set, made when first asked (the
// order's usual path, the same names by value, never asks: 125 KB a poll at
// a million queues).
func (c *change) freshSet(n int) bitset {
	if c.fresh == nil {
		c.fresh = newBitset(n)
		for _, i := range c.changed {
			c.fresh.add(i)
		}
	}
	return c.fresh
}

// ViewAfter is Sorted(filter, key, reverse) of f, made from prevView, the
// order of prev for the same filter, key and direction: the same order, at
// the cost of what changed. It falls back to Sorted when it cannot apply.
// prevView is spent: the result is made in its arrays (a million rows are
// 8 MB, a new array each poll kept the collector busy), so the caller
// must not read it after.
func (f *Fold) ViewAfter(prev *Fold, prevView Order, filter string, key SortKey, reverse bool) Order {
	if prev == f || !stableKey(key) {
		return f.Sorted(filter, key, reverse)
	}
	ch, ok := &f.change, f.change.from == prev && prev != nil
	if !ok {
		c, made := changeFrom(prev, f.Snap, f.byName)
		ch, ok = &c, made
	}
	if !ok {
		return f.Sorted(filter, key, reverse)
	}
	filter = strings.ToLower(filter)
	qs := f.Snap.Queues
	if ch.same && prevView.byValue {
		// a queue read anew whose sort value is the last one's keeps its
		// row (ties go by place, the places being the last one's): only
		// the others are cut out and placed again, and with none the rows
		// stay as they were (a write sorted by expired moved all of them
		// twice, 8 MB, 1.2 ms a poll at a million)
		if moved := f.movedFrom(prev, ch.changed, key); len(moved) < len(ch.changed) {
			c := *ch
			c.changed, c.fresh = moved, nil
			ch = &c
		}
	}
	kept := f.kept(prev, ch, prevView, filter, key, reverse)
	type row struct {
		n int
		v int64
	}
	var in []row
	for _, n := range ch.changed {
		if q := qs.At(n); filter == "" || containsFold(q.Name, filter) {
			in = append(in, row{n: n, v: f.Snap.sortValue(q, key)})
		}
	}
	slices.SortFunc(in, func(a, b row) int {
		return f.compare(key, reverse, a.n, qs.At(a.n), a.v, b.n, qs.At(b.n), b.v)
	})
	// merge from the back, in place: each changed queue goes where a
	// binary search of what is kept puts it, the runs between moved whole;
	// out[:hi] is still kept's head while it is searched
	k := len(kept.Rows)
	out := slices.Grow(kept.Rows, len(in))[:k+len(in)]
	ats := make([]int, len(in))
	w, hi := len(out), k
	for x := len(in) - 1; x >= 0; x-- {
		n, vn := in[x].n, in[x].v
		var at int
		if kept.byValue {
			at = kept.place(n, vn, reverse, hi)
		} else { // the sort by node: a search that reads the queues it passes
			qn := qs.At(n)
			at, _ = slices.BinarySearchFunc(out[:hi], n, func(a, _ int) int {
				qa := qs.At(a)
				return f.compare(key, reverse, a, qa, f.Snap.sortValue(qa, key), n, qn, vn)
			})
		}
		w -= hi - at
		copy(out[w:], out[at:hi])
		w--
		out[w] = n
		hi, ats[x] = at, at
	}
	res := Order{Rows: out, byValue: kept.byValue}
	if kept.byValue {
		vals := make([]int64, len(in))
		for x, r := range in {
			vals[x] = r.v
		}
		res.runs = kept.mergedRuns(vals, ats)
	}
	return res
}

// movedFrom is the queues of changed (places that are prev's too) whose
// sort value by key is not prev's: changed itself when that is all.
func (f *Fold) movedFrom(prev *Fold, changed []int, key SortKey) []int {
	pqs, qs := prev.Snap.Queues, f.Snap.Queues
	stays := func(n int) bool { return prev.Snap.sortValue(pqs.At(n), key) == f.Snap.sortValue(qs.At(n), key) }
	k := slices.IndexFunc(changed, stays)
	if k < 0 {
		return changed
	}
	moved := slices.Clone(changed[:k])
	for _, n := range changed[k+1:] {
		if !stays(n) {
			moved = append(moved, n)
		}
	}
	return moved
}

// kept is prevView (prev's order, filter lower-cased) without the queues
// gone or read anew, at their places now, in prevView's arrays. When no
// queue came or went (the same names at the same places) and the order is
// by a number, each queue read anew is found by its last value, on the
// runs, and cut out, the rows between moved whole: no row is looked at (a
// walk of each was 4 ms a poll at a million).
func (f *Fold) kept(prev *Fold, ch *change, prevView Order, filter string, key SortKey, reverse bool) Order {
	if ch.same && prevView.byValue {
		if del, ok := placesOf(prev, ch.changed, prevView, filter, key, reverse); ok {
			return prevView.without(del)
		}
	}
	fresh := ch.freshSet(f.Snap.Queues.Len())
	return prevView.keep(prevView.Rows, func(pj int) int {
		if n := ch.where(pj); n >= 0 && !fresh.has(n) {
			return n
		}
		return -1
	})
}

// placesOf is where prev's queues at ns (their places then, the names
// unchanged) sit in view, prev's order by value, ascending; found by
// their values then, on the runs. ok is false when one is not where its
// value puts it.
func placesOf(prev *Fold, ns []int, view Order, filter string, key SortKey, reverse bool) (places []int, ok bool) {
	pqs := prev.Snap.Queues
	places = make([]int, 0, len(ns))
	for _, n := range ns {
		q := pqs.At(n)
		if filter != "" && !containsFold(q.Name, filter) {
			continue // it was not in the view
		}
		p := view.place(n, prev.Snap.sortValue(q, key), reverse, len(view.Rows))
		if p == len(view.Rows) || view.Rows[p] != n {
			return nil, false
		}
		places = append(places, p)
	}
	slices.Sort(places)
	return places, true
}

// Cut is the rows of view whose queue's name holds filter (as View
// filters: case aside), in view's order, written to dst's array (dst may
// be view's itself: the cut is then in place): Sorted(filter) of an order
// made by Sorted with no filter, or with a filter that filter holds,
// without sorting again. A long view is matched in the queues' order
// first, on the fold's names (a sort's order reads each queue's name
// through its reading: a cache miss each, 100 ms at a million), then cut
// by the bits.
func (f *Fold) Cut(dst []int, view Order, filter string) Order {
	filter = strings.ToLower(filter)
	if len(view.Rows) < f.Snap.Queues.Len()/8 {
		return view.keep(dst, func(i int) int {
			if containsFold(f.Snap.Queues.At(i).Name, filter) {
				return i
			}
			return -1
		})
	}
	names := f.names()
	match := newBitset(len(names))
	for i, n := range names {
		if containsFold(n, filter) {
			match.add(i)
		}
	}
	return view.keep(dst, func(i int) int {
		if match.has(i) {
			return i
		}
		return -1
	})
}

// names is the queues' names, in their order: made when first asked (a
// filter typed), then shared by every fold made after this one while the
// names stay at their places.
func (f *Fold) names() []string {
	if f.queueNames == nil {
		f.queueNames = make([]string, f.Snap.Queues.Len())
		for i, q := range f.Snap.Queues.All() {
			f.queueNames[i] = q.Name
		}
	}
	return f.queueNames
}

// Carry moves a value kept for each of prev's queues (by index) to the
// same names in f: out[i] is vals[j] for prev's queue j now at i, -1 for a
// queue new in f. ok is false when f was not made after prev by difference
// (the caller maps by name then). With the same names at the same places,
// vals itself is the answer: no array over every queue.
func (f *Fold) Carry(prev *Fold, vals []int32) (out []int32, ok bool) {
	ch := &f.change
	if prev == nil || ch.from != prev || len(vals) != prev.Snap.Queues.Len() {
		return nil, false
	}
	if ch.same {
		return vals, true
	}
	out = make([]int32, f.Snap.Queues.Len())
	for i := range out {
		out[i] = -1
	}
	for j, v := range vals {
		if i := ch.where(j); i >= 0 {
			out[i] = v
		}
	}
	return out, true
}

// compare is View's comparison of queues a and b (at those places),
// given their sort values: the key, the node for SortNode, then the name
// (the index: the snapshot is sorted by name), the whole order reversed
// when reverse is set. A search gives the value it looks for once, not at
// each step (a queue read through the list is a cache miss).
func (f *Fold) compare(key SortKey, reverse bool, a int, qa *Queue, va int64, b int, qb *Queue, vb int64) int {
	c := cmp.Compare(va, vb)
	if c == 0 && key == SortNode {
		c = strings.Compare(qa.Node.Addr(), qb.Node.Addr())
	}
	if c == 0 {
		c = cmp.Compare(a, b)
	}
	if reverse {
		return -c
	}
	return c
}
