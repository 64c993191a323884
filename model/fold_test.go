package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/echomq/emqtop/keyspace"
)

func fixture() *Snapshot {
	nodes := []Node{
		{Addr: "a:1", Role: RolePrimary, Slots: []Range{{0, 5460}}},
		{Addr: "b:1", Role: RolePrimary, Slots: []Range{{5461, 10922}}},
		{Addr: "c:1", Role: RolePrimary, Slots: []Range{{10923, 16000}}}, // 16001.. uncovered
	}
	topo := NewTopology(true, nodes)
	s := &Snapshot{Topology: topo}
	for _, n := range topo.Nodes {
		s.Nodes = append(s.Nodes, NodeStatus{Node: n})
	}
	add := func(name string, p, a, e int64) {
		s.Queues = ListOf(append(s.Queues.Slice(), &Queue{Name: name, Slot: keyspace.QueueSlot(name), Pending: p, Active: a, Expired: e})...)
	}
	add("orders", 5, 3, 2)
	add("fills", 0, 1, 1)
	add("emails", 40, 0, 0)
	add("Zeta", 1, 0, 0)
	return s
}

func TestHeatmapConservesLoadAndCoversEverySlot(t *testing.T) {
	f := NewFold(fixture())
	for _, n := range []int{1, 7, 100, 1000, 16384} {
		cells := f.Heatmap(n)
		var load, exp int64
		var uncovered, queues int
		next := 0
		for _, c := range cells {
			if int(c.Lo) != next || c.Hi < c.Lo {
				t.Fatalf("n=%d: cell %d–%d does not follow %d", n, c.Lo, c.Hi, next)
			}
			next = int(c.Hi) + 1
			load += c.Load
			exp += c.Expired
			uncovered += c.Uncovered
			queues += c.Queues
		}
		if next != keyspace.SlotCount || load != 50 || exp != 3 || uncovered != 383 || queues != 4 {
			t.Errorf("n=%d: end %d load %d expired %d uncovered %d queues %d", n, next, load, exp, uncovered, queues)
		}
		for _, q := range f.Snap.Queues.All() {
			c := cells[CellOf(q.Slot, n)]
			if q.Slot < c.Lo || q.Slot > c.Hi {
				t.Errorf("n=%d: CellOf(%d) = %d–%d", n, q.Slot, c.Lo, c.Hi)
			}
		}
	}
	// binned into a screen's last cells (larger, holding other figures):
	// the same cells as anew
	var dst []HeatCell
	for _, n := range []int{16384, 100, 7, 1000} {
		for i := range dst {
			dst[i] = HeatCell{Load: 99, Queues: 7, Owner: 5}
		}
		dst = f.HeatmapInto(dst, n)
		if want := f.Heatmap(n); !slices.Equal(dst, want) {
			t.Errorf("n=%d: binned into the last cells, they differ from cells made anew", n)
		}
	}
	cells := f.Heatmap(16384)
	if cells[105].Owner != 0 || cells[6000].Owner != 1 || cells[16383].Owner != -1 {
		t.Errorf("owners: %d %d %d", cells[105].Owner, cells[6000].Owner, cells[16383].Owner)
	}
	if cells[105].Level != 4 && cells[keyspace.QueueSlot("emails")].Level != 4 {
		t.Error("the busiest cell is not at full brightness")
	}
}

func TestLevel(t *testing.T) {
	if Level(0, 100) != 0 || Level(100, 100) != 4 || Level(1, 1000000) < 1 || Level(1, 1000000) >= Level(1000, 1000000) {
		t.Error("Level is not a monotone log scale from 1 to 4")
	}
}

func TestView(t *testing.T) {
	f := NewFold(fixture())
	names := func(idx []int) (out []string) {
		for _, i := range idx {
			out = append(out, f.Snap.Queues.At(i).Name)
		}
		return
	}
	for _, tc := range []struct {
		filter string
		key    SortKey
		rev    bool
		want   []string
	}{
		{"", SortExpired, false, []string{"orders", "fills", "Zeta", "emails"}},
		{"", SortPending, false, []string{"emails", "orders", "Zeta", "fills"}},
		{"", SortName, false, []string{"Zeta", "emails", "fills", "orders"}},
		{"", SortName, true, []string{"orders", "fills", "emails", "Zeta"}},
		{"ZE", SortName, false, []string{"Zeta"}},
		{"s", SortPending, false, []string{"emails", "orders", "fills"}},
		{"nothing", SortName, false, nil},
	} {
		got := names(f.View(tc.filter, tc.key, tc.rev))
		if len(got) != len(tc.want) {
			t.Errorf("%q by %v: %v, want %v", tc.filter, tc.key, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q by %v: %v, want %v", tc.filter, tc.key, got, tc.want)
				break
			}
		}
	}
}

func TestTimeline(t *testing.T) {
	edges := []int64{-60000, -30000, 0, 30000, 60000}
	hist := []int64{7, 1, 2, 3, 4, 9}
	for _, w := range []int{1, 4, 10, 117} {
		cols, before, after := Timeline(hist, edges, w)
		var sum int64
		for _, c := range cols {
			sum += c.Count
		}
		if len(cols) != w || sum != 10 || before != 7 || after != 9 {
			t.Errorf("w=%d: %d cols, sum %d, before %d, after %d", w, len(cols), sum, before, after)
		}
	}
	cols, _, _ := Timeline(hist, edges, 4)
	if !cols[0].Expired || !cols[1].Expired || cols[2].Expired || cols[3].Expired {
		t.Errorf("expired side: %+v", cols)
	}
	if cols[0].Count != 1 || cols[1].Count != 2 || cols[2].Count != 3 {
		t.Errorf("columns %+v", cols)
	}
	if c, _, _ := Timeline(nil, edges, 5); len(c) != 5 {
		t.Error("no histogram must still give empty columns")
	}
}

// TestViewMatchesReference: on a snapshot sorted by name (the poller's
// order, which takes View's fast path) with many ties, every sort key,
// both directions and a filter give the order of a plain reference sort.
func TestViewMatchesReference(t *testing.T) {
	s := fixture()
	var qs QueueListBuilder
	for i := 0; i < 500; i++ {
		name := fmt.Sprintf("q-%03d", i)
		qs.Add(&Queue{Name: name, Slot: keyspace.QueueSlot(name), Node: RefOf([]string{"a:1", "b:1", "c:1"}[i%3]),
			Pending: int64(i % 7), Active: int64(i % 5), Expired: int64(i % 3), OldestPendingAgeMs: int64(i % 11)})
	}
	s.Queues = qs.List()
	f := NewFold(s)
	if !f.byName {
		t.Fatal("the fixture is sorted by name, yet the fold does not know it")
	}
	for key := SortKey(0); key < sortKeys; key++ {
		for _, rev := range []bool{false, true} {
			for _, filter := range []string{"", "Q-1"} {
				var want []int
				for i, q := range s.Queues.All() {
					if strings.Contains(strings.ToLower(q.Name), strings.ToLower(filter)) {
						want = append(want, i)
					}
				}
				less := func(a, b *Queue) bool {
					switch key {
					case SortExpired:
						if a.Expired != b.Expired {
							return a.Expired > b.Expired
						}
					case SortPending:
						if a.Pending != b.Pending {
							return a.Pending > b.Pending
						}
					case SortActive:
						if a.Active != b.Active {
							return a.Active > b.Active
						}
					case SortOldest:
						if a.OldestPendingAgeMs != b.OldestPendingAgeMs {
							return a.OldestPendingAgeMs > b.OldestPendingAgeMs
						}
					case SortSlot:
						if a.Slot != b.Slot {
							return a.Slot < b.Slot
						}
					case SortNode:
						if a.Node != b.Node {
							return a.Node < b.Node
						}
					}
					return a.Name < b.Name
				}
				sort.SliceStable(want, func(x, y int) bool {
					if rev {
						return less(s.Queues.At(want[y]), s.Queues.At(want[x]))
					}
					return less(s.Queues.At(want[x]), s.Queues.At(want[y]))
				})
				got := f.View(filter, key, rev)
				if !slices.Equal(got, want) {
					t.Errorf("by %v rev %v filter %q: the order differs from the reference", key, rev, filter)
				}
			}
		}
	}
}

// The sort's direction in words, the same sense for every column: the
// arrow once meant largest first for counts but A→Z for names.
func TestSortOrderWords(t *testing.T) {
	for _, tc := range []struct {
		k       SortKey
		rev     bool
		want    string
		firstOf func(a, b Queue) bool
	}{
		{SortExpired, false, "most first", nil}, {SortExpired, true, "fewest first", nil},
		{SortName, false, "A→Z", nil}, {SortSlot, false, "low→high", nil}, {SortSlot, true, "high→low", nil},
	} {
		if got := tc.k.Order(tc.rev); got != tc.want {
			t.Errorf("%s reversed %v: %q, want %q", tc.k, tc.rev, got, tc.want)
		}
	}
	for k := SortKey(0); k < sortKeys; k++ {
		if k.Order(false) == "" || k.Order(false) == k.Order(true) {
			t.Errorf("%s has no words for its order", k)
		}
	}
}
