package model

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/echomq/emqtop/keyspace"
)

// Fold is what the dashboard derives once per snapshot, so a frame only
// reads: per-slot load and expired counts, the totals, the queues of each
// slot (built when first asked). Not safe for concurrent use: each session
// folds for itself.
type Fold struct {
	Snap *Snapshot
	// the jobs and the expired leases of each slot: arrays a fold made
	// after this one takes over (NewFoldAfter), not copies (256 KB a
	// snapshot); this one then has none
	SlotLoad    *[keyspace.SlotCount]int64
	SlotExpired *[keyspace.SlotCount]int64
	// the queues of slot s are Snap.Queues[slotIdx[slotStart[s]:slotStart[s+1]]]
	slotStart [keyspace.SlotCount + 1]int32
	slotIdx   []int32
	byName    bool // Snap.Queues is sorted by name (the poller's order)
	// the sums of every queue, once a snapshot (a frame draws them twice)
	pending, active, expired int64
	change                   change // from the fold it was made after, if any
	queueNames               []string
}

// NewFold derives the fold of s in O(queues + slots), with no map.
func NewFold(s *Snapshot) *Fold {
	f := &Fold{Snap: s, byName: true, SlotLoad: new([keyspace.SlotCount]int64), SlotExpired: new([keyspace.SlotCount]int64)}
	for i := range s.Queues.Len() {
		if !s.ByName && i > 0 && s.Queues.At(i-1).Name >= s.Queues.At(i).Name {
			f.byName = false
		}
		q := s.Queues.At(i)
		f.SlotLoad[q.Slot] += q.Load()
		f.SlotExpired[q.Slot] += q.Expired
		f.slotStart[q.Slot+1]++
		f.pending += q.Pending
		f.active += q.Active
		f.expired += q.Expired
	}
	for i := 1; i <= keyspace.SlotCount; i++ {
		f.slotStart[i] += f.slotStart[i-1]
	}
	return f
}

// NewFoldAfter is NewFold(s), made from prev, the fold of the snapshot
// before, by difference: the queues s carries (the same *Queue) are not
// read at all, the sums move by what changed. Made whole when most changed.
// prev forgets the fold it was made after (a chain of folds would keep
// every snapshot alive), and gives its per-slot sums to the new fold: prev
// is then only what ViewAfter and Carry read (its snapshot, its slots'
// index), never a heatmap.
func NewFoldAfter(prev *Fold, s *Snapshot) *Fold {
	ch, ok := changeFrom(prev, s, s.ByName)
	if prev != nil {
		prev.change = change{}
	}
	if !ok {
		return NewFold(s)
	}
	f := &Fold{Snap: s, byName: true, change: ch,
		SlotLoad: prev.SlotLoad, SlotExpired: prev.SlotExpired,
		pending: prev.pending, active: prev.active, expired: prev.expired}
	prev.SlotLoad, prev.SlotExpired = nil, nil // taken over: a read of them now is a fault, found at once
	add := func(q *Queue, sign int64) {
		f.SlotLoad[q.Slot] += sign * q.Load()
		f.SlotExpired[q.Slot] += sign * q.Expired
		f.pending += sign * q.Pending
		f.active += sign * q.Active
		f.expired += sign * q.Expired
	}
	for _, j := range ch.replaced {
		add(prev.Snap.Queues.At(j), -1)
	}
	for _, i := range ch.changed {
		add(s.Queues.At(i), 1)
	}
	if ch.same && ch.slotsSame {
		// the same queues in the same slots: the slots' index is the
		// last one's (built once, never written after)
		f.slotStart, f.slotIdx = prev.slotStart, prev.slotIdx
		f.queueNames = prev.queueNames
		return f
	}
	var count [keyspace.SlotCount]int32
	for sl := range count {
		count[sl] = prev.slotStart[sl+1] - prev.slotStart[sl]
	}
	for _, j := range ch.replaced {
		count[prev.Snap.Queues.At(j).Slot]--
	}
	for _, i := range ch.changed {
		count[s.Queues.At(i).Slot]++
	}
	for sl := range count {
		f.slotStart[sl+1] = f.slotStart[sl] + count[sl]
	}
	return f
}

// slotIndex builds the queues of each slot when first asked (the heatmap's
// cell under the cursor): O(queues) of random writes that most snapshots
// never need.
func (f *Fold) slotIndex() []int32 {
	if f.slotIdx != nil || f.Snap.Queues.Len() == 0 {
		return f.slotIdx
	}
	f.slotIdx = make([]int32, f.Snap.Queues.Len())
	next := f.slotStart
	for i := range f.Snap.Queues.Len() {
		sl := f.Snap.Queues.At(i).Slot
		f.slotIdx[next[sl]] = int32(i)
		next[sl]++
	}
	return f.slotIdx
}

// Totals is the snapshot's Totals, summed once.
func (f *Fold) Totals() (pending, active, expired int64) { return f.pending, f.active, f.expired }

// Index is the place of the queue of that name in Snap.Queues, -1 when it
// has none: a binary search in the poller's order.
func (f *Fold) Index(name string) int {
	qs := f.Snap.Queues
	if !f.byName {
		for i, q := range qs.All() {
			if q.Name == name {
				return i
			}
		}
		return -1
	}
	i := sort.Search(qs.Len(), func(i int) bool { return qs.At(i).Name >= name })
	if i == qs.Len() || qs.At(i).Name != name {
		return -1
	}
	return i
}

// InSlot counts the queues of slot s.
func (f *Fold) InSlot(s uint16) int { return int(f.slotStart[s+1] - f.slotStart[s]) }

// HeatCell is one cell of the slot heatmap: a contiguous range of slots.
type HeatCell struct {
	Lo, Hi    uint16
	Owner     int16 // index in Snap.Nodes of the primary owning most of the range; -1: none
	Uncovered int   // slots of the range no node covers
	Load      int64 // pending + active of the queues in the range
	Expired   int64
	Queues    int
	Level     int // brightness 0..4 on a log scale of load against the busiest cell
	// the servers' own load in the range (Snapshot.Load): keys, and µs of
	// CPU and bytes of network a second, rounded
	Keys, CPU, Net int64
}

// CellRange is the slot range of cell i of n.
func CellRange(i, n int) (lo, hi uint16) {
	return uint16(i * keyspace.SlotCount / n), uint16((i+1)*keyspace.SlotCount/n - 1)
}

// CellOf is the cell of n that holds slot.
func CellOf(slot uint16, n int) int {
	c := int(slot) * n / keyspace.SlotCount
	for c > 0 {
		if lo, _ := CellRange(c, n); lo <= slot {
			break
		}
		c--
	}
	for c < n-1 {
		if _, hi := CellRange(c, n); hi >= slot {
			break
		}
		c++
	}
	return c
}

// QueuesIn lists the queues in slots lo..hi, busiest first.
func (f *Fold) QueuesIn(lo, hi uint16) []*Queue {
	var out []*Queue
	for _, i := range f.slotIndex()[f.slotStart[lo]:f.slotStart[int(hi)+1]] {
		out = append(out, f.Snap.Queues.At(int(i)))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Load() > out[j].Load() })
	return out
}

// SortKey is a column of the queue list.
type SortKey int

// The columns, in the order `s` cycles through them.
const (
	SortExpired SortKey = iota
	SortPending
	SortActive
	SortOldest
	SortGrowth
	SortName
	SortSlot
	SortNode
	sortKeys
)

var sortNames = [...]string{"expired", "pending", "active", "oldest", "growth", "name", "slot", "node"}

func (k SortKey) String() string { return sortNames[k] }

// Order says in words which way a sort by k runs: "most first" for the
// counts, "A→Z" for names, "low→high" for slots; reversed, the other way.
func (k SortKey) Order(reverse bool) string {
	w := [...][2]string{
		SortExpired: {"most first", "fewest first"}, SortPending: {"most first", "fewest first"},
		SortActive: {"most first", "fewest first"}, SortOldest: {"oldest first", "youngest first"},
		SortGrowth: {"fastest growth first", "fastest shrink first"}, SortName: {"A→Z", "Z→A"},
		SortSlot: {"low→high", "high→low"}, SortNode: {"A→Z", "Z→A"},
	}[k]
	if reverse {
		return w[1]
	}
	return w[0]
}

// Next is the next column.
func (k SortKey) Next() SortKey { return (k + 1) % sortKeys }

// View is the queue list as shown: filtered by a case-insensitive
// substring of the name, sorted by key (descending for counts, ascending
// for names, unless reversed), ties broken by name.
func (f *Fold) View(filter string, key SortKey, reverse bool) []int {
	return f.Sorted(filter, key, reverse).Rows
}

// Sorted is View's rows with their runs of one sort value, for ViewAfter.
func (f *Fold) Sorted(filter string, key SortKey, reverse bool) Order {
	filter = strings.ToLower(filter)
	qs := f.Snap.Queues
	if key == SortNode || !f.byName {
		return Order{Rows: f.viewSlow(filter, key, reverse)}
	}
	// the snapshot is sorted by name, so a queue's index breaks ties in
	// name order, and a row is two integers: small rows, a cheap compare
	type row struct {
		k int64
		i int
	}
	rows := make([]row, 0, qs.Len())
	kept(qs, filter, func(i int, q *Queue) { rows = append(rows, row{k: f.Snap.sortValue(q, key), i: i}) })
	slices.SortFunc(rows, func(a, b row) int {
		if a.k != b.k {
			return cmp.Compare(a.k, b.k)
		}
		return cmp.Compare(a.i, b.i)
	})
	if reverse { // the order is total (indexes are unique): reversed is the reverse sort
		slices.Reverse(rows)
	}
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.i
	}
	return withRuns(out, func(p int) int64 { return rows[p].k })
}

// kept calls f for every queue whose name holds the lower-cased filter.
func kept(qs QueueList, filter string, f func(i int, q *Queue)) {
	for i, q := range qs.All() {
		if filter == "" || containsFold(q.Name, filter) {
			f(i, q)
		}
	}
}

// sortValue is a queue's key for the sorts by a number: counts descending,
// the slot ascending, names (SortName) by index alone. The growth is
// derived for every queue here, in that sort alone.
func (s *Snapshot) sortValue(q *Queue, key SortKey) int64 {
	switch key {
	case SortExpired:
		return -q.Expired
	case SortPending:
		return -q.Pending
	case SortActive:
		return -q.Active
	case SortOldest:
		return -s.OldestAge(q)
	case SortGrowth: // fastest net growth of pending first
		return -int64(s.Trend(q).PendingNet * 1000)
	case SortSlot:
		return int64(q.Slot)
	}
	return 0
}

// viewSlow is View for the sort by node, or a snapshot not sorted by name.
func (f *Fold) viewSlow(filter string, key SortKey, reverse bool) []int {
	qs := f.Snap.Queues
	type row struct {
		k int64
		s string // the string key: the node, for SortNode
		i int
	}
	rows := make([]row, 0, qs.Len())
	kept(qs, filter, func(i int, q *Queue) {
		r := row{i: i, k: f.Snap.sortValue(q, key)}
		if key == SortNode {
			r.s = q.Node.Addr()
		}
		rows = append(rows, r)
	})
	slices.SortFunc(rows, func(a, b row) int {
		c := cmp.Compare(a.k, b.k)
		if c == 0 {
			c = strings.Compare(a.s, b.s)
		}
		if c == 0 && f.byName {
			c = cmp.Compare(a.i, b.i)
		} else if c == 0 {
			c = strings.Compare(qs.At(a.i).Name, qs.At(b.i).Name)
		}
		if reverse {
			return -c
		}
		return c
	})
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.i
	}
	return out
}
