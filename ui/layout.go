package ui

// Minimum terminal size; below it the dashboard says so instead of
// drawing a garbled screen.
const (
	minW = 60
	minH = 16
)

type rect struct{ x, y, w, h int }

// layout is where every pane goes at the current size.
type layout struct {
	tooSmall bool
	full     bool // side-by-side panes; else compact, with the job panes as tabs
	heat     rect
	nodes    rect // w == 0 when the nodes pane is folded into the legend
	queues   rect
	pending  rect // compact: pending and active share one tab box (jobs)
	active   rect
	timeline rect
	jobs     rect
	// mapW × mapRows characters of heatmap
	mapW, mapRows int
	queueRows     int
}

func (m *Model) layout() layout {
	w, h := m.width, m.height
	var l layout
	if w < minW || h < minH {
		l.tooSmall = true
		return l
	}
	H := h - 2 // the status bar and the help line
	y := 1
	if w >= 100 && h >= 30 {
		l.full = true
		topH := 10
		if h >= 50 {
			topH = 13
		}
		heatW := w * 58 / 100
		l.heat = rect{0, y, heatW, topH}
		l.nodes = rect{heatW, y, w - heatW, topH}
		lowerH, tlH := 8, 4
		if h >= 50 {
			lowerH = 14
		}
		qH := H - topH - lowerH - tlH
		l.queues = rect{0, y + topH, w, qH}
		pw := w * 35 / 100
		l.pending = rect{0, y + topH + qH, pw, lowerH}
		l.active = rect{pw, y + topH + qH, w - pw, lowerH}
		l.timeline = rect{0, y + topH + qH + lowerH, w, tlH}
	} else {
		topH := 7
		if h < 20 {
			topH = 6
		}
		l.heat = rect{0, y, w, topH}
		jobsH := max(6, H/3)
		qH := H - topH - jobsH
		l.queues = rect{0, y + topH, w, qH}
		l.jobs = rect{0, y + topH + qH, w, jobsH}
	}
	l.mapW = l.heat.w - 2
	l.mapRows = l.heat.h - 4           // borders, legend, inspector
	l.queueRows = max(1, l.queues.h-3) // borders and the header
	return l
}
