package commands

import (
	"slices"
	"testing"

	"github.com/echomq/emqtop/model"
)

func names(s *model.Snapshot, idx []int) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, s.Queues.At(i).Name)
	}
	return out
}

// A line after the first carries the queues whose figures changed, new
// ones among them, and names those gone; --whole carries every queue.
func TestWatchDeltas(t *testing.T) {
	snap := func(qs ...*model.Queue) *model.Snapshot { return &model.Snapshot{Queues: model.ListOf(qs...)} }
	s1 := snap(&model.Queue{Name: "a", Pending: 1}, &model.Queue{Name: "b", Pending: 2}, &model.Queue{Name: "c", Pending: 3})
	s2 := snap(&model.Queue{Name: "a", Pending: 4}, &model.Queue{Name: "c", Pending: 3}, &model.Queue{Name: "d", Pending: 1})
	s3 := snap(&model.Queue{Name: "a", Pending: 4}, &model.Queue{Name: "c", Pending: 3, Stale: true}, &model.Queue{Name: "d", Pending: 1})
	d, whole := &deltas{}, &deltas{whole: true}
	for i, c := range []struct {
		s                *model.Snapshot
		are, want, wGone []string
	}{
		{s1, []string{queuesAll}, []string{"a", "b", "c"}, nil},
		{s2, []string{queuesChanged}, []string{"a", "d"}, []string{"b"}},
		{s2, []string{queuesChanged}, []string{}, []string{}},
		{s3, []string{queuesChanged}, []string{"c"}, []string{}}, // its node went down
	} {
		idx, gone, are := d.pick(c.s)
		if are != c.are[0] || !slices.Equal(names(c.s, idx), c.want) || !slices.Equal(gone, c.wGone) {
			t.Errorf("line %d: %s %v gone %v; want %s %v gone %v", i+1, are, names(c.s, idx), gone, c.are[0], c.want, c.wGone)
		}
		if idx, gone, are := whole.pick(c.s); are != queuesAll || len(idx) != c.s.Queues.Len() || gone != nil {
			t.Errorf("--whole, line %d: %s, %d queues, gone %v", i+1, are, len(idx), gone)
		}
	}
}

// A queue that stops changing is sent again when its trend settles: once
// when its last change leaves the fine past, once when it leaves the five
// minutes of the long rate, and never else.
func TestWatchDeltasSendASettledTrend(t *testing.T) {
	h := model.NewHistory()
	d := &deltas{}
	var sentAt []int
	for i := 0; i < 500; i++ {
		h.Begin(1_700_000_000_000 + int64(i)*1000)
		if i == 0 {
			h.Put("x", [model.Metrics]int64{model.MPending: 5})
		}
		s := &model.Snapshot{Queues: model.ListOf(&model.Queue{Name: "x", Pending: 5, Past: h.Past("x")}), Clock: h.Clock()}
		if idx, _, _ := d.pick(s); len(idx) == 1 {
			sentAt = append(sentAt, i)
		}
	}
	// the fine past is 60 polls (poll 0 leaves it at poll 60); the long
	// rate settles at the first line more than six minutes on
	if want := []int{0, model.FineN, int(model.TrendSettles.Seconds()) + 1}; !slices.Equal(sentAt, want) {
		t.Errorf("x sent at lines %v, want %v", sentAt, want)
	}
}
