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
// by name): where each of the last one's queues is now (-1: gone, or read
// anew), and the queues now that are new readings, by index.
type change struct {
	from    *Fold
	at      []int32
	changed []int
}

// changeFrom walks prev's queues and s's side by side: a queue carried is
// the same pointer, one compare and no read of it. ok is false when more
// than reorderMost of the queues changed, or a list is not by name.
func changeFrom(prev *Fold, s *Snapshot, byName bool) (change, bool) {
	if prev == nil || !byName || !prev.byName {
		return change{}, false
	}
	qs, pqs := s.Queues, prev.Snap.Queues
	ch := change{from: prev, at: make([]int32, pqs.Len())}
	complete := WalkByName(qs, pqs, func(i, j int) bool {
		switch {
		case i >= 0 && j >= 0 && qs.At(i) == pqs.At(j): // carried
			ch.at[j] = int32(i)
			return true
		case j >= 0:
			ch.at[j] = -1 // gone, or read anew
		}
		if i >= 0 {
			ch.changed = append(ch.changed, i)
		}
		return float64(len(ch.changed)) <= reorderMost*float64(qs.Len())
	})
	if !complete {
		return change{}, false
	}
	return ch, true
}

// WalkByName walks two lists of queues sorted by name side by side and
// calls f for each name: i its place in cur, j in prev, -1 where that list
// has no such name. A queue carried from prev is the same *Queue in both
// (f can tell with a pointer compare, no read of it); a name in both that
// is not is a new reading. f returns false to stop the walk, and then
// WalkByName does.
func WalkByName(cur, prev QueueList, f func(i, j int) bool) bool {
	i, j := 0, 0
	n, m := cur.Len(), prev.Len()
	for i < n || j < m {
		if i == j && i < n && cur.Shares(prev, i) {
			// a chunk both share: every queue of it carried, none looked at
			for end := min(ChunkEnd(i), n); i < end; i++ {
				if !f(i, i) {
					return false
				}
			}
			j = i
			continue
		}
		var more bool
		var c, p *Queue
		if i < n {
			c = cur.At(i)
		}
		if j < m {
			p = prev.At(j)
		}
		switch {
		case c != nil && p != nil && c == p:
			more = f(i, j)
			i, j = i+1, j+1
		case p == nil || (c != nil && c.Name < p.Name):
			more = f(i, -1)
			i++
		case c == nil || c.Name > p.Name:
			more = f(-1, j)
			j++
		default:
			more = f(i, j)
			i, j = i+1, j+1
		}
		if !more {
			return false
		}
	}
	return true
}

// ViewAfter is View(filter, key, reverse) of f, made from prevView, the
// view of prev for the same filter, key and direction: the same order, at
// the cost of what changed. It falls back to View when it cannot apply.
func (f *Fold) ViewAfter(prev *Fold, prevView []int, filter string, key SortKey, reverse bool) []int {
	if prev == f || !stableKey(key) {
		return f.View(filter, key, reverse)
	}
	ch, ok := f.change, f.change.from == prev && prev != nil
	if !ok {
		ch, ok = changeFrom(prev, f.Snap, f.byName)
	}
	if !ok {
		return f.View(filter, key, reverse)
	}
	filter = strings.ToLower(filter)
	qs := f.Snap.Queues
	kept := make([]int, 0, len(prevView)+len(ch.changed))
	for _, pj := range prevView {
		if n := ch.at[pj]; n >= 0 {
			kept = append(kept, int(n))
		}
	}
	var in []int
	for _, n := range ch.changed {
		if filter == "" || containsFold(qs.At(n).Name, filter) {
			in = append(in, n)
		}
	}
	order := f.order(key, reverse)
	slices.SortFunc(in, order)
	// merge: each changed queue goes where a binary search of what is
	// kept puts it; the runs between are copied whole
	out := make([]int, 0, len(kept)+len(in))
	from := 0
	for _, n := range in {
		to, _ := slices.BinarySearchFunc(kept[from:], n, order)
		out = append(out, kept[from:from+to]...)
		out = append(out, n)
		from += to
	}
	return append(out, kept[from:]...)
}

// order compares two queues (by index) as View sorts them: the key, the
// node for SortNode, then the name (the index: the snapshot is sorted by
// name), the whole order reversed when reverse is set.
func (f *Fold) order(key SortKey, reverse bool) func(a, b int) int {
	qs := f.Snap.Queues
	return func(a, b int) int {
		qa, qb := qs.At(a), qs.At(b)
		c := cmp.Compare(f.Snap.sortValue(qa, key), f.Snap.sortValue(qb, key))
		if c == 0 && key == SortNode {
			c = strings.Compare(qa.Node, qb.Node)
		}
		if c == 0 {
			c = cmp.Compare(a, b)
		}
		if reverse {
			return -c
		}
		return c
	}
}
