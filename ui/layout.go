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
	return l
}

// zoomed gives the focused pane the whole body and puts every other
// pane off screen. In the compact layout the job panes are the tab box.
func (l layout) zoomed(focus pane, w, h int) layout {
	if l.tooSmall {
		return l
	}
	body := rect{0, 1, w, h - 2}
	z := layout{full: l.full}
	switch {
	case focus == paneQueues:
		z.queues = body
	case focus == paneHeat:
		z.heat = body
	case !l.full:
		z.jobs = body
	case focus == panePending:
		z.pending = body
	default:
		z.active = body
	}
	return z
}

// placement registers a pane: the component and where the layout puts it
// (a zero rect: not on screen at this size).
type placement struct {
	c  Component
	at func(layout) rect
}

// placements are the panes on the dashboard, with their places. A new pane
// is one component, one line here, and its rect in computeLayout.
func (m *Model) placements() []placement {
	return []placement{
		{m.heat, func(l layout) rect { return l.heat }},
		{m.nodes, func(l layout) rect { return l.nodes }},
		{m.queues, func(l layout) rect { return l.queues }},
		{m.pending, func(l layout) rect { return l.pending }},
		{m.active, func(l layout) rect { return l.active }},
		{m.timeline, func(l layout) rect { return l.timeline }},
		{m.trend, func(l layout) rect { return l.trend }},
		{m.tabs, func(l layout) rect { return l.jobs }},
	}
}

// relayout computes the layout for the current size and hands each
// component its size.
func (m *Model) relayout() {
	l := computeLayout(m.width, m.height)
	if m.zoom {
		l = l.zoomed(m.focus, m.width, m.height)
	}
	m.lay = l
	if l.tooSmall {
		return
	}
	m.heat.nodesBeside = l.nodes.w > 0
	for _, p := range m.placements() {
		if r := p.at(l); r.w > 0 {
			p.c.SetSize(r.w, r.h)
		}
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
