package model

import (
	"math"
	"sort"
	"strings"

	"github.com/echomq/emqtop/keyspace"
)

// Fold is what the dashboard derives once per snapshot, so a frame only
// reads: per-slot load and expired counts, the queues of each slot, and a
// name index.
type Fold struct {
	Snap        *Snapshot
	SlotLoad    [keyspace.SlotCount]int64
	SlotExpired [keyspace.SlotCount]int64
	SlotQueues  map[uint16][]int // indexes into Snap.Queues
	byName      map[string]int
	MaxSlotLoad int64
}

// NewFold derives the fold of s.
func NewFold(s *Snapshot) *Fold {
	f := &Fold{Snap: s, SlotQueues: make(map[uint16][]int, len(s.Queues)), byName: make(map[string]int, len(s.Queues))}
	for i := range s.Queues {
		q := &s.Queues[i]
		f.SlotLoad[q.Slot] += q.Load()
		f.SlotExpired[q.Slot] += q.Expired
		f.SlotQueues[q.Slot] = append(f.SlotQueues[q.Slot], i)
		f.byName[q.Name] = i
		f.MaxSlotLoad = max(f.MaxSlotLoad, f.SlotLoad[q.Slot])
	}
	return f
}

// Queue finds a queue by name, or nil.
func (f *Fold) Queue(name string) *Queue {
	if i, ok := f.byName[name]; ok {
		return &f.Snap.Queues[i]
	}
	return nil
}

// HeatCell is one cell of the slot heatmap: a contiguous range of slots.
type HeatCell struct {
	Lo, Hi    uint16
	Owner     int16 // index in Snap.Nodes of the primary owning most of the range; -1: none
	Uncovered int   // slots of the range no node covers
	Load      int64 // pending + active of the queues in the range
	Expired   int64
	Queues    int
	Level     int // brightness 0..4 on a log scale of load against the busiest cell
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

// Heatmap bins the 16384 slots into n cells (n at most 16384).
func (f *Fold) Heatmap(n int) []HeatCell {
	n = max(1, min(n, keyspace.SlotCount))
	cells := make([]HeatCell, n)
	var owner = &f.Snap.Topology.Owner
	counts := make([]int, len(f.Snap.Nodes)+1)
	var maxLoad int64
	for i := range cells {
		lo, hi := CellRange(i, n)
		c := HeatCell{Lo: lo, Hi: hi, Owner: -1}
		clear(counts)
		for s := int(lo); s <= int(hi); s++ {
			o := owner[s]
			if o < 0 {
				c.Uncovered++
			} else if int(o) < len(counts) {
				counts[o]++
			}
			c.Load += f.SlotLoad[s]
			c.Expired += f.SlotExpired[s]
			c.Queues += len(f.SlotQueues[uint16(s)])
		}
		best := 0
		for o, k := range counts {
			if k > best {
				best, c.Owner = k, int16(o)
			}
		}
		maxLoad = max(maxLoad, c.Load)
		cells[i] = c
	}
	for i := range cells {
		cells[i].Level = Level(cells[i].Load, maxLoad)
	}
	return cells
}

// Level is a brightness 0..4: 0 for no load, else a log scale against max.
func Level(load, max int64) int {
	if load <= 0 || max <= 0 {
		return 0
	}
	l := 1 + int(3*math.Log1p(float64(load))/math.Log1p(float64(max))+0.5)
	return min(4, l)
}

// QueuesIn lists the queues in slots lo..hi, busiest first.
func (f *Fold) QueuesIn(lo, hi uint16) []*Queue {
	var out []*Queue
	for s := int(lo); s <= int(hi); s++ {
		for _, i := range f.SlotQueues[uint16(s)] {
			out = append(out, &f.Snap.Queues[i])
		}
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
	SortName
	SortSlot
	SortNode
	sortKeys
)

var sortNames = [...]string{"expired", "pending", "active", "oldest", "name", "slot", "node"}

func (k SortKey) String() string { return sortNames[k] }

// Next is the next column.
func (k SortKey) Next() SortKey { return (k + 1) % sortKeys }

// View is the queue list as shown: filtered by a case-insensitive
// substring of the name, sorted by key (descending for counts, ascending
// for names, unless reversed), ties broken by name.
func (f *Fold) View(filter string, key SortKey, reverse bool) []int {
	filter = strings.ToLower(filter)
	out := make([]int, 0, len(f.Snap.Queues))
	for i := range f.Snap.Queues {
		if filter == "" || strings.Contains(strings.ToLower(f.Snap.Queues[i].Name), filter) {
			out = append(out, i)
		}
	}
	qs := f.Snap.Queues
	less := func(a, b *Queue) int {
		var d int64
		switch key {
		case SortExpired:
			d = b.Expired - a.Expired
		case SortPending:
			d = b.Pending - a.Pending
		case SortActive:
			d = b.Active - a.Active
		case SortOldest:
			d = b.OldestPendingAgeMs - a.OldestPendingAgeMs
		case SortSlot:
			d = int64(a.Slot) - int64(b.Slot)
		case SortNode:
			d = int64(strings.Compare(a.Node, b.Node))
		}
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	}
	sort.SliceStable(out, func(i, j int) bool {
		c := less(&qs[out[i]], &qs[out[j]])
		if reverse {
			return c > 0
		}
		return c < 0
	})
	return out
}

// TimelineColumn is one column of the lease-expiry timeline.
type TimelineColumn struct {
	Count   int64
	Expired bool // the column lies at or before now
}

// Timeline maps a histogram over edges (ms relative to now) onto width
// columns spanning edges[0]..edges[last]. before and after are the leases
// outside the window.
func Timeline(hist, edges []int64, width int) (cols []TimelineColumn, before, after int64) {
	if width <= 0 || len(edges) < 2 || len(hist) != len(edges)+1 {
		return make([]TimelineColumn, max(0, width)), 0, 0
	}
	before, after = hist[0], hist[len(hist)-1]
	cols = make([]TimelineColumn, width)
	lo, hi := edges[0], edges[len(edges)-1]
	span := float64(hi - lo)
	for c := range cols {
		end := float64(lo) + span*float64(c+1)/float64(width)
		cols[c].Expired = end <= 0
	}
	// bucket i (1..len(edges)-1) is (edges[i-1], edges[i]]: its count goes
	// to the column of its middle
	for i := 1; i < len(edges); i++ {
		mid := float64(edges[i-1]+edges[i]) / 2
		c := int((mid - float64(lo)) / span * float64(width))
		c = max(0, min(width-1, c))
		cols[c].Count += hist[i]
	}
	return cols, before, after
}
