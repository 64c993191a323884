package ui

import (
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
		if m.c.fold.Index(sel) < 0 || m.queues.order.fold != m.c.fold {
			t.Fatalf("round %d: the order was not made for the fold shown", round)
		}
	}
}
