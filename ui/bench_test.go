package ui

import (
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tslc "github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

func colourTheme() *theme.Theme {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	th, _ := theme.New(r, "dark")
	return th
}

// BenchmarkView: one frame at 200×60 with 10,000 queues on three nodes,
// in 256 colours.
func BenchmarkView(b *testing.B) {
	src := &fakeSource{snap: fixture(10000)}
	m := New(src, colourTheme(), Options{Now: func() time.Time { return fixedNow }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	mm, _ = mm.Update(snapshotMsg{snap: src.snap})
	m = mm.(*Model)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkFold: folding a new snapshot of 10,000 queues into the model
// (the derived index and the sorted, filtered queue list).
func BenchmarkFold(b *testing.B) {
	src := &fakeSource{snap: fixture(10000)}
	// the poller's snapshots are sorted by name
	src.snap.Queues = byNameList(src.snap.Queues)
	m := New(src, colourTheme(), Options{Now: func() time.Time { return fixedNow }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m = mm.(*Model)
	b.ReportAllocs()
	for b.Loop() {
		mm, _ = m.Update(snapshotMsg{snap: src.snap})
	}
	_ = mm
}

// BenchmarkViewNewSnapshot: the first frame after a poll, when nothing
// cached can be reused (the heatmap binned again, the trend chart drawn
// again); each iteration hands the model a new snapshot, outside the timer.
func BenchmarkViewNewSnapshot(b *testing.B) {
	src := &fakeSource{snap: fixture(10000)}
	m := New(src, colourTheme(), Options{Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s := *src.snap
		m.Update(snapshotMsg{external: true, snap: &s})
		b.StartTimer()
		_ = m.View()
	}
}

// BenchmarkMillion: the list at a million queues (the scale issue), at
// 200×60, sorted by expired. snapshot-1000-changed hands the model a new
// snapshot in which 1,000 queues have a new reading and the rest are
// carried (the same *Queue, as the poller shares them), as a
// change-driven poll of a million queues does, with the sort's order and
// with the order held (o); frame draws one frame.
//
//	go test ./ui -run x -bench Million -benchtime 20x
func BenchmarkMillion(b *testing.B) {
	base := fixture(1_000_000)
	base.Queues = byNameList(base.Queues)
	base.ByName = true // as the poller's snapshots
	src := &fakeSource{snap: base}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := New(src, colourTheme(), Options{Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.Update(snapshotMsg{external: true, snap: base})
	_ = m.View()
	runtime.GC()
	runtime.ReadMemStats(&after)
	// what a session (serve runs a model a session) holds beyond the
	// snapshot it shares with the others
	b.Run("session", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-held")
	})
	// changed: 1,000 queues read anew a poll, each with its expired count
	// changed too when expiredToo (the sort's value: the queue moves),
	// else its pending alone (an enqueue: it keeps its row)
	changedBy := func(b *testing.B, expiredToo bool) {
		b.ReportAllocs()
		round := 0
		for b.Loop() {
			b.StopTimer()
			s := *m.raw
			// the list as the poller makes it: the last one with the
			// changed queues put in, the other chunks shared
			put := map[int]*model.Queue{}
			for k := 0; k < 1000; k++ {
				i := (round*7919 + k*997) % s.Queues.Len()
				q := *s.Queues.At(i)
				q.Pending++
				if expiredToo {
					q.Expired = (q.Expired + 1) % 3
				}
				put[i] = &q
			}
			idx := slices.Sorted(maps.Keys(put))
			qs := make([]*model.Queue, len(idx))
			for k, i := range idx {
				qs[k] = put[i]
			}
			s.Queues = s.Queues.With(idx, qs)
			round++
			b.StartTimer()
			m.Update(snapshotMsg{external: true, snap: &s})
		}
	}
	changed := func(b *testing.B) { changedBy(b, true) }
	b.Run("snapshot-1000-changed", changed)
	b.Run("snapshot-1000-enqueued", func(b *testing.B) { changedBy(b, false) })
	b.Run("snapshot-1000-changed-order-held", func(b *testing.B) { // o
		m.queues.toggleHold()
		defer m.queues.toggleHold()
		changed(b)
	})
	b.Run("frame", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
	})
	// typing a filter: a key's update and the frame after it, the
	// filter's first key (every name looked at) to its fifth
	b.Run("filter-keystroke", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Update(keyMsg("/"))
			for _, k := range []string{"b", "u", "l", "k", "-"} {
				m.Update(keyMsg(k))
				_ = m.View()
			}
			b.StopTimer()
			m.Update(keyMsg("esc"))
			b.StartTimer()
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(5*b.N), "ms/key")
	})
	b.Run("status-filter-snapshot", func(b *testing.B) { // /status:stuck kept, a poll's snapshot
		m.queues.filter.SetValue("status:stuck")
		defer m.queues.filter.SetValue("")
		changed(b)
	})
	b.Run("scroll", func(b *testing.B) { // pgdown and its frame
		b.ReportAllocs()
		for b.Loop() {
			m.Update(keyMsg("pgdown"))
			_ = m.View()
		}
	})
}

// byNameList is l sorted by name, as the poller's snapshots are.
func byNameList(l model.QueueList) model.QueueList {
	qs := l.Slice()
	slices.SortFunc(qs, func(x, y *model.Queue) int { return strings.Compare(x.Name, y.Name) })
	return model.ListOf(qs...)
}

// BenchmarkCanvasLines: the trend chart's cells read into lines, 100×20, a
// minute of a wavy series in braille (the part of a frame the chart's
// cells cost: 1.2-1.5 ms when each cell's look was asked, 0.34-0.38 once
// a cell styled as the one before it is known by its bytes).
func BenchmarkCanvasLines(b *testing.B) {
	th := colourTheme()
	c := tslc.New(100, 20, tslc.WithAxesStyles(th.Dim, th.Dim))
	now := time.Unix(1e9, 0)
	c.SetTimeRange(now.Add(-time.Minute), now)
	c.SetYRange(0, 100)
	c.SetViewTimeAndYRange(now.Add(-time.Minute), now, 0, 100)
	c.SetDataSetStyle("a", th.Good)
	for i := range 60 {
		c.PushDataSet("a", tslc.TimePoint{Time: now.Add(time.Duration(i-60) * time.Second), Value: float64(i % 37)})
	}
	c.DrawBrailleDataSets([]string{"a"})
	b.ReportAllocs()
	for b.Loop() {
		_ = canvasLines(&c.Canvas)
	}
}
