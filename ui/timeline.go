package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// timeline is the lease-expiry timeline of the selected queue around the
// server's now. Its span is the root's (< and > are global keys, since the
// poller reads the histogram for it).
type timeline struct {
	c    *common
	w, h int
}

func (t *timeline) SetSize(w, h int)          { t.w, t.h = w, h }
func (t *timeline) Update(tea.Msg) tea.Cmd    { return nil }
func (t *timeline) ShortHelp() []key.Binding  { return nil }
func (t *timeline) FullHelp() [][]key.Binding { return nil }

func (t *timeline) View() string {
	q := t.c.sel
	title := "Lease expiry"
	if q == nil {
		return box(t.c.th.Border, title, nil, t.w, t.h)
	}
	title += " · " + textgate.Bounded(q.Name, 40) + " · < narrow  > widen"
	return box(t.c.th.Border, title, t.lines(t.w-2), t.w, t.h)
}

// lines are the axis and the bars, for w cells.
func (t *timeline) lines(w int) []string {
	th := t.c.th
	q, edges := t.c.sel, t.c.snap.Edges
	if q == nil || len(q.Hist) != len(edges)+1 || len(edges) == 0 {
		return []string{th.Dim.Render(" lease timeline: reading…"), ""}
	}
	cols, before, after := model.Timeline(q.Hist, edges, max(1, w-8))
	var peak int64
	for _, c := range cols {
		peak = max(peak, c.Count)
	}
	bars := []rune(" ▁▂▃▄▅▆▇█")
	var b strings.Builder
	left := fmt.Sprintf("%4s", "")
	if before > 0 {
		left = th.Warn.Render(fmt.Sprintf("«%3s", human(before)))
	}
	b.WriteString(left)
	zero := -1
	for i, c := range cols {
		ch := bars[0]
		if c.Count > 0 {
			ch = bars[min(len(bars)-1, 1+int(int64(len(bars)-2)*c.Count/peak))]
		}
		s := string(ch)
		if zero < 0 && !c.Expired {
			zero = i
			if c.Count == 0 {
				s = "│"
			}
		}
		if c.Expired && c.Count > 0 {
			s = th.Warn.Render(s)
		}
		b.WriteString(s)
	}
	if after > 0 {
		b.WriteString(fmt.Sprintf("%3s»", human(after)))
	}
	win := time.Duration(edges[len(edges)-1]) * time.Millisecond
	axis := fmt.Sprintf("    −%s", ago(win))
	pad := max(1, (w-8)/2-len(axis)+4-1)
	axis += strings.Repeat(" ", pad) + "now"
	axis += strings.Repeat(" ", max(1, w-4-len(axis)-len(ago(win)))) + "+" + ago(win)
	return []string{th.Dim.Render(axis), b.String()}
}
