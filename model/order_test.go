package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/echomq/emqtop/keyspace"
)

// TestViewAfterIsView: the order kept between snapshots is the order a
// whole sort gives, poll after poll, for every key, direction and filter,
// while queues change (a new *Queue, as the poller makes for a new
// reading), arrive and go, and carried ones stay the same pointer. Many
// ties, so the tie-break by name is held too.
func TestViewAfterIsView(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	nodes := []string{"a:1", "b:1", "c:1"}
	mk := func(name string) *Queue {
		return &Queue{Name: name, Slot: keyspace.QueueSlot(name), Node: RefOf(nodes[r.IntN(3)]),
			Pending: r.Int64N(5), Active: r.Int64N(4), Expired: r.Int64N(3)}
	}
	s := fixture()
	var qs QueueListBuilder
	for i := 0; i < 2000; i += 2 { // the odd names arrive later
		qs.Add(mk(fmt.Sprintf("q-%04d", i)))
	}
	s.Queues = qs.List()
	for key := SortKey(0); key < sortKeys; key++ {
		for _, rev := range []bool{false, true} {
			for _, filter := range []string{"", "Q-1"} {
				prev := NewFold(s)
				view := prev.Sorted(filter, key, rev)
				cur := s
				for round := 0; round < 12; round++ {
					next := *cur
					if round%2 == 1 {
						// the same queues, a few read anew: the list made
						// as the poller makes it, most chunks shared
						var idx []int
						var put []*Queue
						for i, q := range cur.Queues.All() {
							if r.IntN(100) < 2 {
								c := *q
								c.Pending, c.Expired = r.Int64N(5), r.Int64N(3)
								idx, put = append(idx, i), append(put, &c)
							}
						}
						next.Queues = cur.Queues.With(idx, put)
					} else {
						var qs []*Queue
						for _, q := range cur.Queues.All() {
							switch x := r.IntN(100); {
							case x < 3: // gone
							case x < 10: // a new reading
								c := *q
								c.Pending, c.Expired, c.Node = r.Int64N(5), r.Int64N(3), RefOf(nodes[r.IntN(3)])
								qs = append(qs, &c)
							default: // carried: the same queue
								qs = append(qs, q)
							}
						}
						for k := 0; k < 20; k++ { // arrivals, in name order
							qs = append(qs, mk(fmt.Sprintf("q-%04d", 2*r.IntN(1000)+1)))
						}
						slices.SortStableFunc(qs, func(a, b *Queue) int { return cmpName(a, b) })
						next.Queues = ListOf(slices.CompactFunc(qs, func(a, b *Queue) bool { return a.Name == b.Name })...)
					}
					next.ByName = true
					whole := NewFold(&next)
					f := NewFoldAfter(prev, &next)
					if f.change.from == nil {
						t.Fatalf("round %d: the fold was made whole, not by difference", round)
					}
					if same := f.change.same; same != (round%2 == 1) {
						t.Fatalf("round %d: the change says the same names at the same places is %v", round, same)
					}
					sameFold(t, f, whole)
					again := whole.ViewAfter(prev, cloneOrder(view), filter, key, rev) // ViewAfter spends the view it is given
					got := f.ViewAfter(prev, view, filter, key, rev)
					want := whole.Sorted(filter, key, rev)
					if !slices.Equal(got.Rows, want.Rows) {
						t.Fatalf("by %v rev %v filter %q, round %d: the kept order differs from a whole sort (%d rows, %d)", key, rev, filter, round, len(got.Rows), len(want.Rows))
					}
					sameRuns(t, got, want)
					if !slices.Equal(again.Rows, got.Rows) {
						t.Fatalf("round %d: the order after a fold made whole differs", round)
					}
					if filter != "" { // a filter cut from the whole order is the filtered sort
						all := whole.Sorted("", key, rev)
						cut := whole.Cut(nil, all, filter)
						if !slices.Equal(cut.Rows, want.Rows) {
							t.Fatalf("by %v rev %v, round %d: the cut order differs from a whole sort", key, rev, round)
						}
						sameRuns(t, cut, want)
						if inPlace := whole.Cut(all.Rows, all, filter); !slices.Equal(inPlace.Rows, want.Rows) {
							t.Fatalf("by %v rev %v, round %d: the order cut in place differs from a whole sort", key, rev, round)
						}
					}
					prev, view, cur = f, got, &next
				}
			}
		}
	}
}

// sameRuns: an order made by difference knows the runs of one sort value
// a whole sort gives (the next ViewAfter places changed queues by them).
func sameRuns(t *testing.T, got, want Order) {
	t.Helper()
	if got.byValue != want.byValue || !slices.Equal(got.runs, want.runs) {
		t.Fatalf("the runs of one value: %v (%d, by value %v), a whole sort's %v (%d, %v)", head(got.runs), len(got.runs), got.byValue, head(want.runs), len(want.runs), want.byValue)
	}
	if want.byValue && len(want.Rows) > 0 && len(want.runs) < 2 && want.runs[0].v != 0 {
		t.Fatal("one run of a value other than the name's: the test proves little")
	}
}

func head(r []valueRun) []valueRun { return r[:min(len(r), 6)] }

func cloneOrder(o Order) Order {
	o.Rows, o.runs = slices.Clone(o.Rows), slices.Clone(o.runs)
	return o
}

func cmpName(a, b *Queue) int {
	switch {
	case a.Name < b.Name:
		return -1
	case a.Name > b.Name:
		return 1
	}
	return 0
}

// sameFold: a fold made by difference holds what one made whole does.
func sameFold(t *testing.T, got, want *Fold) {
	t.Helper()
	if *got.SlotLoad != *want.SlotLoad || *got.SlotExpired != *want.SlotExpired || got.slotStart != want.slotStart {
		t.Fatal("the slots' sums or counts differ from a fold made whole")
	}
	gp, ga, ge := got.Totals()
	if wp, wa, we := want.Totals(); gp != wp || ga != wa || ge != we {
		t.Fatalf("totals %d/%d/%d, want %d/%d/%d", gp, ga, ge, wp, wa, we)
	}
	for _, sl := range []uint16{0, 100, 5000, 16383} {
		if g, w := got.QueuesIn(sl, sl+min(200, 16383-sl)), want.QueuesIn(sl, sl+min(200, 16383-sl)); !slices.Equal(g, w) {
			t.Fatalf("the queues of slots %d+: %d, want %d", sl, len(g), len(w))
		}
	}
}

// A queue's reading fits the allocator's 192-byte class (a million of
// them are most of the dashboard's heap): a field added, the job lists
// back in the struct (248 bytes, the 256 class), or the small ones spread
// again fails here.
func TestQueueFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Queue{}); n > 176 {
		t.Errorf("model.Queue is %d bytes: past the 176-byte size class, 16 MB or more at a million queues", n)
	}
}

// searchIndex is the binary search's answer on runs even, skewed and
// short, ascending and descending, for indexes in them and between.
func TestSearchIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 300; round++ {
		n := []int{0, 1, 2, 31, 33, 1000, 50000}[round%7]
		rows := make([]int, 0, n)
		at := 0
		for len(rows) < n {
			if round%3 == 0 { // skewed: dense, then a long gap, then dense
				at += 1 + r.IntN(2)
				if r.IntN(1000) == 0 {
					at += 1 << 20
				}
			} else {
				at += 1 + r.IntN(40)
			}
			rows = append(rows, at)
		}
		for _, dir := range []int{1, -1} {
			rs := slices.Clone(rows)
			if dir < 0 {
				slices.Reverse(rs)
			}
			for k := 0; k < 200; k++ {
				x := r.IntN(at + 3)
				if k%2 == 0 && n > 0 {
					x = rows[r.IntN(n)]
				}
				want, _ := slices.BinarySearchFunc(rs, x, func(row, x int) int { return dir * cmp.Compare(row, x) })
				if got := searchIndex(rs, x, dir); got != want {
					t.Fatalf("%d rows, dir %d, index %d: %d, not %d", n, dir, x, got, want)
				}
			}
		}
	}
}
