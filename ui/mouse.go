package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

// mouse: a click focuses the pane under it and selects the row or cell
// clicked; the wheel moves the selection of the pane under it (an overlay
// scrolls). --no-mouse leaves the terminal's own selection alone.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if o := m.overlay(); o != nil {
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			return o.Update(tea.KeyMsg{Type: tea.KeyUp})
		case tea.MouseButtonWheelDown:
			return o.Update(tea.KeyMsg{Type: tea.KeyDown})
		}
		return nil
	}
	if m.c.fold == nil || m.lay.tooSmall {
		return nil
	}
	p, r, ok := m.paneAt(msg.X, msg.Y)
	if !ok {
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp, tea.MouseButtonWheelDown:
		k := tea.KeyMsg{Type: tea.KeyDown}
		if msg.Button == tea.MouseButtonWheelUp {
			k.Type = tea.KeyUp
		}
		m.setFocus(p)
		return tea.Batch(m.focused().Update(k), m.selectionChanged())
	case tea.MouseButtonLeft:
		if msg.Action != tea.MouseActionPress {
			return nil
		}
		m.setFocus(p)
		m.clickIn(p, msg.X-r.x, msg.Y-r.y)
		return m.selectionChanged()
	}
	return nil
}

// paneAt is the focusable pane drawn at x, y, with its rect.
func (m *Model) paneAt(x, y int) (pane, rect, bool) {
	l := m.lay
	in := func(r rect) bool { return r.w > 0 && x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }
	switch {
	case in(l.queues):
		return paneQueues, l.queues, true
	case in(l.heat):
		return paneHeat, l.heat, true
	case in(l.pending):
		return panePending, l.pending, true
	case in(l.active):
		return paneActive, l.active, true
	case in(l.jobs): // the compact tab box: the pane on show
		if m.focus == panePending {
			return panePending, l.jobs, true
		}
		return paneActive, l.jobs, true
	}
	return 0, rect{}, false
}

// clickIn selects what is at x, y inside pane p (0, 0 is its top-left
// border corner).
func (m *Model) clickIn(p pane, x, y int) {
	switch p {
	case paneQueues:
		l := m.queues
		if i := l.offset + y - 2; y >= 2 && i < len(l.view) { // under the border and the header
			l.sel = i
			l.name = l.selectedName()
		}
	case paneHeat:
		h := m.heat
		row, col := y-1, x-1
		if row < 0 || col < 0 || row >= h.mapRows() || col >= h.mapW() {
			return
		}
		n := h.cells()
		i := row*h.mapW() + col
		if !m.c.th.Glyphs {
			i = 2*row*h.mapW() + col // the upper cell of the character
		}
		if i < n {
			lo, _ := model.CellRange(i, n)
			h.cursor = int(lo)
		}
	case panePending, paneActive:
		jp := m.pending
		if p == paneActive {
			jp = m.active
		}
		_, jobs := jp.jobs()
		rows := jp.h - 3 // borders and the header
		off := max(0, jp.cur-rows+1)
		if i := off + y - 2; y >= 2 && i < len(jobs) {
			jp.cur = i
		}
	}
}
