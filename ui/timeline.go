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
	c       *common
	w, h    int
	focused bool
}

func (t *timeline) SetSize(w, h int)          { t.w, t.h = w, h }
func (t *timeline) SetFocus(f bool)           { t.focused = f }
func (t *timeline) Update(tea.Msg) tea.Cmd    { return nil }
func (t *timeline) ShortHelp() []key.Binding  { return nil }
func (t *timeline) FullHelp() [][]key.Binding { return nil }

func (t *timeline) View() string {
	q := t.c.sel
	title := "Lease expiry"
	if q == nil {
		return box(focusBorder(t.c.th, t.focused), title, nil, t.w, t.h)
	}
	title += " · " + textgate.Bounded(q.Name, 40) + " · < narrow  > widen"
	return box(focusBorder(t.c.th, t.focused), title, t.lines(t.w-2, t.h-2), t.w, t.h)
}

// yMargin is the width of the y-scale on the left of the bars; rMargin
// holds the count of leases beyond the window on the right ("12»").
const (
	yMargin = 6
	rMargin = 6
)

// lines draw the timeline in w×rows: bars of leases ending in each column
// (eighth blocks, as tall as the rows allow) under a y-scale, expired ones
// in the warning style; a now marker that stays visible whatever falls on
// it (a bar hides it in the bar rows, never on the axis); the axis; and,
// with room, what lies beyond the window in words.
func (t *timeline) lines(w, rows int) []string {
	th := t.c.th
	q, edges := t.c.sel, t.c.snap.Edges
	rows = max(2, rows)
	if q == nil || len(q.Hist()) != len(edges)+1 || len(edges) == 0 {
		return []string{th.Dim.Render(" lease timeline: reading…"), ""}
	}
	bw := max(1, w-yMargin-rMargin)
	cols, before, after := model.Timeline(q.Hist(), edges, bw)
	var peak int64
	zero := bw - 1
	for i, c := range cols {
		peak = max(peak, c.Count)
		if !c.Expired && zero == bw-1 && (i == 0 || cols[i-1].Expired) {
			zero = i
		}
	}
	words := rows >= 4
	barRows := rows - 1
	if words {
		barRows--
	}
	out := make([]string, 0, rows)
	for r := 0; r < barRows; r++ {
		out = append(out, t.barRow(cols, r, barRows, peak, zero))
	}
	win := time.Duration(edges[len(edges)-1]) * time.Millisecond
	out = append(out, t.axis(bw, zero, win, before, after))
	if words {
		out = append(out, t.beyond(w, win, before, after))
	}
	return out
}

// barRow is row r (0 at the top) of n: each column's bar in eighths.
func (t *timeline) barRow(cols []model.TimelineColumn, r, n int, peak int64, zero int) string {
	th := t.c.th
	blocks := []rune(" ▁▂▃▄▅▆▇█")
	var b strings.Builder
	switch {
	case r == 0:
		b.WriteString(fitLeft(human(peak), yMargin-1) + "┤")
	default:
		b.WriteString(strings.Repeat(" ", yMargin-1) + "│")
	}
	for i, c := range cols {
		h8 := int64(0)
		if c.Count > 0 && peak > 0 {
			h8 = max(1, (c.Count*int64(n)*8+peak-1)/peak)
		}
		level := max(0, min(8, h8-int64(n-1-r)*8))
		ch := string(blocks[level])
		switch {
		case level > 0 && c.Expired:
			ch = th.Warn.Render(ch)
		case level == 0 && i == zero:
			ch = th.Dim.Render("│")
		}
		b.WriteString(ch)
	}
	return b.String()
}

// axis: the window's ends and a now marker under its column; the counts
// beyond the window at the ends («n ended before it, n» end after it).
func (t *timeline) axis(bw, zero int, win time.Duration, before, after int64) string {
	th := t.c.th
	cells := []rune(strings.Repeat("─", bw))
	put := func(at int, s string) {
		for i, r := range []rune(s) {
			if at+i >= 0 && at+i < len(cells) {
				cells[at+i] = r
			}
		}
	}
	put(0, "−"+ago(win))
	right := "+" + ago(win)
	put(bw-len([]rune(right)), right)
	put(zero, "▲now")
	if zero+4 > bw { // no room after the marker: the word before it
		put(zero-3, "now▲")
	}
	left := strings.Repeat(" ", yMargin)
	if before > 0 {
		left = th.Warn.Render(fitLeft("«"+human(before), yMargin-1)) + " "
	}
	end := ""
	if after > 0 {
		end = " " + human(after) + "»"
	}
	return left + th.Dim.Render(string(cells)) + end
}

// beyond words the leases outside the window.
func (t *timeline) beyond(w int, win time.Duration, before, after int64) string {
	th := t.c.th
	var parts []string
	if before > 0 {
		parts = append(parts, th.Warn.Render(fmt.Sprintf("«%s ran out more than %s ago (stuck longer)", human(before), ago(win))))
	}
	if after > 0 {
		parts = append(parts, fmt.Sprintf("%s» end more than %s from now", human(after), ago(win)))
	}
	if len(parts) == 0 {
		return th.Dim.Render(fmt.Sprintf(" every lease ends within now±%s", ago(win)))
	}
	return " " + strings.Join(parts, th.Dim.Render(" · "))
}
