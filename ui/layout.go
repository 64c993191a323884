package ui

// Minimum terminal size; below it the dashboard says so instead of
// drawing a garbled screen.
const (
	minW = 60
	minH = 16
)

type rect struct{ x, y, w, h int }

// layout is where every pane goes at the current size. It is computed once
// per size change (relayout) and handed to the components through SetSize.
type layout struct {
	tooSmall bool
	full     bool // side-by-side panes; else compact, with the job panes as tabs
	heat     rect
	nodes    rect // w == 0 when the nodes pane is folded into the legend
	queues   rect
	pending  rect // compact: pending and active share one tab box (jobs)
	active   rect
	timeline rect
	trend    rect // w == 0 when there is no room for it
	jobs     rect
	// spare is where a focused pane with no place of its own is drawn:
	// the compact layout's lower box; w == 0 in the full layout
	spare rect
}

func computeLayout(w, h int) layout {
	var l layout
	if w < minW || h < minH {
		l.tooSmall = true
		return l
	}
	H := h - 2 // the status bar and the help line
	y := 1
	if w >= 100 && h >= 30 {
		l.full = true
		topH, lowerH, tlH := 10, 8, 4
		if h >= 50 {
			topH, lowerH = 13, 14
		}
		if h >= 36 { // room for the trend pane beside the timeline
			tlH = 8 + (h-36)/8
		}
		// the queue list has its share first (at 100×30 it had 3 rows): the
		// job panes, then the heatmap and nodes give rows up to it
		const minQ = 10
		qH := H - topH - lowerH - tlH
		for take := min(lowerH-6, minQ-qH); take > 0; take = 0 {
			lowerH, qH = lowerH-take, qH+take
		}
		for take := min(topH-8, minQ-qH); take > 0; take = 0 {
			topH, qH = topH-take, qH+take
		}
		heatW := w * 58 / 100
		l.heat = rect{0, y, heatW, topH}
		l.nodes = rect{heatW, y, w - heatW, topH}
		l.queues = rect{0, y + topH, w, qH}
		pw := w * 35 / 100
		l.pending = rect{0, y + topH + qH, pw, lowerH}
		l.active = rect{pw, y + topH + qH, w - pw, lowerH}
		l.timeline = rect{0, y + topH + qH + lowerH, w, tlH}
		if tlH >= 8 {
			l.timeline.w = w / 2
			l.trend = rect{w / 2, l.timeline.y, w - w/2, tlH}
		}
		return l
	}
	topH := 7
	if h < 20 {
		topH = 6
	}
	l.heat = rect{0, y, w, topH}
	jobsH := max(6, H/3)
	qH := H - topH - jobsH
	l.queues = rect{0, y + topH, w, qH}
	l.jobs = rect{0, y + topH + qH, w, jobsH}
	l.spare = l.jobs
	return l
}

// relayout computes the layout for the current size, arranges the panes
// for it and the focus (panes.go), and hands each pane drawn its size.
func (m *Model) relayout() {
	m.lay = computeLayout(m.width, m.height)
	if m.lay.tooSmall {
		m.drawn = nil
		return
	}
	if !m.placeable(m.focus) { // the size took the focused pane's place
		m.focus = paneQueues
		for i, e := range m.panes {
			if f, ok := e.c.(focusable); ok && e.focus {
				f.SetFocus(pane(i) == m.focus && m.dialog == nil)
			}
		}
	}
	m.drawn = m.arrange()
	m.heat.nodesBeside = m.isDrawn(m.nodes)
	for _, d := range m.drawn {
		m.panes[d.i].c.SetSize(d.r.w, d.r.h)
	}
	if m.detail != nil {
		m.detail.SetSize(m.width, m.height-2)
	}
	if m.helpView != nil {
		m.helpView.SetSize(m.width, m.height-2)
	}
	if m.dialog != nil {
		m.dialog.SetSize(m.width, m.height)
	}
}

// placeable reports whether pane p can be on screen at this size: its
// place, or the spare one.
func (m *Model) placeable(p pane) bool {
	return m.panes[p].at(m.lay).w > 0 || m.lay.spare.w > 0
}

// isDrawn reports whether c is on screen, itself or shown by a wrapper.
func (m *Model) isDrawn(c Component) bool {
	for _, d := range m.drawn {
		e := m.panes[d.i].c
		if w, ok := e.(wrapper); ok {
			e = w.shown()
		}
		if e == c {
			return true
		}
	}
	return false
}
