package commands

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// wholePick is the stream's rule said whole, as the first version did it:
// every queue's figures compared with the line before's, by name, and
// every queue's last change looked at. The deltas made by difference must
// say the same.
type wholePick struct {
	last             map[string]sent
	fineStart, nowMs int64
}

func (w *wholePick) pick(s *model.Snapshot) []string {
	fineStart, nowMs, long := s.Clock.FineStart(), s.Clock.NowMs(), model.TrendSettles.Milliseconds()
	out, next := []string{}, map[string]sent{}
	for _, q := range s.Queues.All() {
		next[q.Name] = sentOf(q)
		at := q.Past.LastChangeMs()
		last, ok := w.last[q.Name]
		settles := at != 0 && ((at >= w.fineStart && at < fineStart) || (at >= w.nowMs-long && at < nowMs-long))
		if w.last == nil || !ok || last != sentOf(q) || settles {
			out = append(out, q.Name)
		}
	}
	w.last, w.fineStart, w.nowMs = next, fineStart, nowMs
	return out
}

// Over ten minutes of polls made as the poller makes them (the queues not
// read carried, chunks shared; some read anew with the same figures, some
// changed, arrivals and departures), the lines carry exactly the queues
// the whole rule names, settled trends included.
func TestWatchDeltasAgreeWithTheWholeRule(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	h := model.NewHistory()
	at := int64(1_700_000_000_000)
	mk := func(name string, pending int64) *model.Queue {
		h.Put(name, [model.Metrics]int64{model.MPending: pending})
		return &model.Queue{Name: name, Pending: pending, Past: h.Past(name)}
	}
	h.Begin(at)
	var qs []*model.Queue
	for i := range 300 {
		qs = append(qs, mk(fmt.Sprintf("q-%03d", 2*i), int64(i%5)))
	}
	list := model.ListOf(qs...)
	d, w := &deltas{}, &wholePick{}
	sent := 0
	for poll := range 700 {
		if poll > 0 {
			at += 1000
			h.Begin(at)
			if poll%50 == 0 { // one arrives, one goes
				all := list.Slice()
				k := r.IntN(len(all))
				all = slices.Delete(all, k, k+1)
				name := fmt.Sprintf("q-%03d", 2*r.IntN(300)+1)
				if k, found := slices.BinarySearchFunc(all, name, func(q *model.Queue, n string) int { return strings.Compare(q.Name, n) }); !found {
					all = slices.Insert(all, k, mk(name, 1))
				}
				list = model.ListOf(all...)
			} else if poll < 120 || poll%7 == 0 { // quiet later: the trends settle
				var idx []int
				var put []*model.Queue
				for i := range list.Len() {
					if r.IntN(100) < 3 {
						p := list.At(i).Pending
						if r.IntN(2) == 0 {
							p++
						}
						idx, put = append(idx, i), append(put, mk(list.At(i).Name, p))
					}
				}
				list = list.With(idx, put)
			}
		}
		s := &model.Snapshot{Queues: list, ByName: true, Clock: h.Clock()}
		got, _, _ := d.pick(s)
		want := w.pick(s)
		if g := names(s, got); !slices.Equal(g, want) {
			t.Fatalf("poll %d: the line carries %v, the whole rule %v", poll, g, want)
		}
		sent += len(got)
	}
	if sent < 1000 {
		t.Fatalf("only %d queues sent over the run: the test proves little", sent)
	}
}

// BenchmarkWatchDeltas: a line of `--watch --json` picks its queues at a
// million, 1,000 of them read anew each poll (the list made as the poller
// makes it), the history's clock moving a second a line:
//
//	go test ./internal/commands -run x -bench WatchDeltas -benchtime 20x
func BenchmarkWatchDeltas(b *testing.B) {
	const n = 1_000_000
	h := model.NewHistory()
	h.Reserve(n)
	at := int64(1_700_000_000_000)
	h.Begin(at)
	var lb model.QueueListBuilder
	for i := range n {
		name := fmt.Sprintf("tenant-%07d", i)
		h.Put(name, [model.Metrics]int64{model.MPending: int64(i % 7)})
		lb.Add(&model.Queue{Name: name, Pending: int64(i % 7), Past: h.Past(name)})
	}
	list := model.ListOf(lb.List().Slice()...)
	d := &deltas{}
	d.pick(&model.Snapshot{Queues: list, ByName: true, Clock: h.Clock()})
	r := rand.New(rand.NewPCG(5, 6))
	b.ReportAllocs()
	sent := 0
	for b.Loop() {
		b.StopTimer()
		at += 1000
		h.Begin(at)
		idx := make([]int, 0, 1000)
		for k := range 1000 {
			idx = append(idx, k*(n/1000)+r.IntN(n/1000))
		}
		put := make([]*model.Queue, len(idx))
		for k, i := range idx {
			q := *list.At(i)
			q.Pending++
			h.Put(q.Name, [model.Metrics]int64{model.MPending: q.Pending})
			q.Past = h.Past(q.Name)
			put[k] = &q
		}
		list = list.With(idx, put)
		s := &model.Snapshot{Queues: list, ByName: true, Clock: h.Clock()}
		b.StartTimer()
		got, _, _ := d.pick(s)
		sent += len(got)
	}
	b.ReportMetric(float64(sent)/float64(b.N), "queues/line")
}
