package ui

import (
	"fmt"
	"slices"
	"testing"

	"github.com/echomq/emqtop/model"
)

// The list keeps its order from poll to poll and moves only what changed
// (the scale issue): after each new snapshot, in which some queues have a
// new reading and the rest are carried (the same *Queue), one arrives and
// one goes, the rows are those of a whole sort, the selection stays on its
// queue. (model.TestViewAfterIsView holds the fold by difference.)
func TestListOrderKeptAcrossPolls(t *testing.T) {
	s := fixture(300)
	s.Queues = byNameList(s.Queues)
	s.ByName = true
	src := &fakeSource{snap: s}
	m := ready(src, 120, 40, Options{})
	m = press(m, "down", "down", "down")
	sel := m.queues.selectedName()
	for round := 0; round < 6; round++ {
		next := *m.raw
		var qs []*model.Queue
		for i, q := range m.raw.Queues.All() {
			switch {
			case i == 7+round: // gone
			case i%5 == round%5 && q.Name != sel:
				c := *q
				c.Expired, c.Pending = (c.Expired+int64(i))%4, c.Pending+int64(i%3)
				qs = append(qs, &c)
			default:
				qs = append(qs, q)
			}
		}
		next.Queues = model.ListOf(qs...).Append(&model.Queue{Name: "zz-new-" + string(rune('a'+round)), Expired: 3, OldestPendingAgeMs: -1})
		m.Update(snapshotMsg{external: true, snap: &next})
		if want := m.c.fold.View(m.queues.filter.Value(), m.queues.sortKey, m.queues.reverse); !slices.Equal(m.queues.view, want) {
			t.Fatalf("round %d: the list's rows differ from a whole sort", round)
		}
		if got := m.queues.selectedName(); got != sel {
			t.Fatalf("round %d: the selection moved from %s to %s", round, sel, got)
		}
		if m.c.fold.Index(sel) < 0 || m.queues.order.all.fold != m.c.fold {
			t.Fatalf("round %d: the order was not made for the fold shown", round)
		}
	}
}

// A filter typed key by key (each narrows the last), cut back, cleared and
// typed again over new snapshots shows the rows a whole sort with that
// filter gives; a key that narrows cuts from the last filter's rows.
func TestFilterCutFromTheOrder(t *testing.T) {
	s := fixture(300)
	s.Queues = byNameList(s.Queues)
	s.ByName = true
	m := ready(&fakeSource{snap: s}, 120, 40, Options{})
	check := func(step string) {
		t.Helper()
		want := m.c.fold.View(m.queues.filter.Value(), m.queues.sortKey, m.queues.reverse)
		if !slices.Equal(m.queues.view, want) {
			t.Fatalf("%s (filter %q): %d rows, a whole sort %d", step, m.queues.filter.Value(), len(m.queues.view), len(want))
		}
	}
	press(m, "/")
	for _, k := range []string{"B", "u", "l", "k", "-", "0", "0", "1"} {
		press(m, k)
		check("typed " + k)
		if m.queues.filter.Value() == "Bulk-0" && len(m.queues.view) == 0 {
			t.Fatal("the filter kept nothing: the test proves nothing")
		}
	}
	narrow := len(m.queues.view)
	press(m, "backspace", "backspace") // wider: cut from every row again
	check("cut back")
	if m.queues.filter.Value() != "Bulk-0" || len(m.queues.view) <= narrow {
		t.Fatalf("backspace: filter %q keeps %d rows, %d before", m.queues.filter.Value(), len(m.queues.view), narrow)
	}
	for round := range 3 { // polls with the filter on: the filtered order follows
		next := *m.raw
		var idx []int
		var put []*model.Queue
		for i := round; i < next.Queues.Len(); i += 11 {
			q := *next.Queues.At(i)
			q.Expired = int64(50 + i%7)
			idx, put = append(idx, i), append(put, &q)
		}
		next.Queues = next.Queues.With(idx, put)
		m.Update(snapshotMsg{external: true, snap: &next})
		check(fmt.Sprintf("poll %d", round))
		press(m, "s") // another sort: cut from that sort's order
		check(fmt.Sprintf("sorted by %v", m.queues.sortKey))
	}
	press(m, "esc")
	check("cleared")
}
