package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

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
	slices.SortFunc(src.snap.Queues, func(x, y *model.Queue) int { return strings.Compare(x.Name, y.Name) })
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
