package ui

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
)

// pane is a pane's index in the session's pane table.
type pane int

// The panes the root names, by their place in the table (TestPaneTable
// holds it). Every other pane is its entry alone.
const (
	paneQueues  pane = 0
	paneHeat    pane = 1
	panePending pane = 6
	paneActive  pane = 7
)

// paneEntry registers a pane: its name (the help, the focus), the
// component, where the layout puts it, and whether it takes the focus.
// Focus order (tab), zoom, layout, mouse and help walk the table: a pane
// is one component and one entry.
//
// Panes may share a place: the focused one is drawn there, else the first
// of them. A focused pane with no place at this size (the compact layout)
// is drawn in the layout's spare place, the lower box.
type paneEntry struct {
	name  string
	c     Component
	at    func(layout) rect
	focus bool
}

// newPanes is the session's pane table.
func (m *Model) newPanes() []paneEntry {
	return []paneEntry{
		{"queue list", m.queues, func(l layout) rect { return l.queues }, true},
		{"heatmap", m.heat, func(l layout) rect { return l.heat }, true},
		{"nodes", m.nodes, func(l layout) rect { return l.nodes }, true},
		{"foreign keys", m.foreign, func(l layout) rect { return l.nodes }, true},
		{"lease timeline", m.timeline, func(l layout) rect { return l.timeline }, true},
		{"trend", m.trend, func(l layout) rect { return l.trend }, true},
		{"pending", m.pending, func(l layout) rect { return l.pending }, true},
		{"active", m.active, func(l layout) rect { return l.active }, true},
		{"jobs", m.tabs, func(l layout) rect { return l.jobs }, false},
	}
}

// wrapper is a pane that draws others (the compact layout's tab box): it
// shows the pane it draws now, and takes the place of the ones it shows.
type wrapper interface {
	shown() Component
}

// drawnPane is a pane on screen at a place.
type drawnPane struct {
	i pane
	r rect
}

// arrange decides which pane is drawn at which place, for the layout and
// the focus: the table's rules above; zoomed, the pane that has (or shows)
// the focus takes the whole body.
func (m *Model) arrange() []drawnPane {
	l := m.lay
	if l.tooSmall {
		return nil
	}
	type claim struct {
		i    pane
		rank int // 2: shows the focused pane; 1: is it; 0: neither
	}
	at := map[rect]claim{}
	var order []rect
	for i, e := range m.panes {
		p := pane(i)
		r := e.at(l)
		if r.w == 0 && p == m.focus {
			r = l.spare
		}
		if r.w == 0 || r.h == 0 {
			continue
		}
		rank := 0
		switch {
		case m.shows(p):
			rank = 2
		case p == m.focus:
			rank = 1
		}
		old, ok := at[r]
		if !ok {
			order = append(order, r)
		}
		if !ok || rank > old.rank {
			at[r] = claim{p, rank}
		}
	}
	var out []drawnPane
	for _, r := range order {
		c := at[r]
		if m.zoom && c.rank > 0 {
			return []drawnPane{{c.i, rect{0, 1, m.width, m.height - 2}}}
		}
		out = append(out, drawnPane{c.i, r})
	}
	return out
}

// shows reports whether pane p is a wrapper that draws the focused pane.
func (m *Model) shows(p pane) bool {
	w, ok := m.panes[p].c.(wrapper)
	return ok && w.shown() == m.panes[m.focus].c
}

// focused is the focused pane's component.
func (m *Model) focused() focusable { return m.panes[m.focus].c.(focusable) }

// nextFocus is the focusable pane d steps from the focus, in the table's
// order.
func (m *Model) nextFocus(d int) pane {
	n := len(m.panes)
	p := int(m.focus)
	for range n {
		p = (p + d + n) % n
		if m.panes[p].focus && m.placeable(pane(p)) {
			break
		}
	}
	return pane(p)
}

// paneOf is the entry of a component.
func (m *Model) paneOf(c Component) (pane, bool) {
	for i, e := range m.panes {
		if e.c == c {
			return pane(i), true
		}
	}
	return 0, false
}

// applyFocus tells each focusable pane whether it has the focus; none has
// it while a dialog is open. The arrangement follows the focus.
func (m *Model) applyFocus() {
	for i, e := range m.panes {
		if f, ok := e.c.(focusable); ok && e.focus {
			f.SetFocus(pane(i) == m.focus && m.dialog == nil)
		}
	}
	m.relayout()
}

// paneZone is the mouse zone of a drawn pane.
func paneZone(p pane) string { return "pane:" + strconv.Itoa(int(p)) }

// mouse: a click focuses the pane under it (the zone of each pane drawn)
// and hands it the click from its top-left corner: the component finds its
// row or cell itself, the root never reckons a pane's insides; the wheel moves
// the selection of the pane under it (an overlay scrolls). --no-mouse
// leaves the terminal's own selection alone.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	wheel := map[tea.MouseButton]tea.KeyType{tea.MouseButtonWheelUp: tea.KeyUp, tea.MouseButtonWheelDown: tea.KeyDown}
	if o := m.overlay(); o != nil {
		if k, ok := wheel[msg.Button]; ok {
			return o.Update(tea.KeyMsg{Type: k})
		}
		return nil
	}
	if m.c.fold == nil || msg.Action != tea.MouseActionPress {
		return nil
	}
	for _, d := range m.drawn {
		x, y, in := m.c.hit(paneZone(d.i), msg)
		if !in {
			continue
		}
		c := m.panes[d.i].c
		if w, ok := c.(wrapper); ok {
			c = w.shown()
		}
		p, ok := m.paneOf(c)
		if !ok || !m.panes[p].focus {
			return nil
		}
		m.setFocus(p)
		if k, ok := wheel[msg.Button]; ok {
			return tea.Batch(c.Update(tea.KeyMsg{Type: k}), m.selectionChanged())
		}
		if msg.Button == tea.MouseButtonLeft { // the component finds its row or cell from its corner
			msg.X, msg.Y = x, y
			return tea.Batch(c.Update(msg), m.selectionChanged())
		}
		return nil
	}
	return nil
}
