package ui

import (
	"strings"
	"unsafe"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
)

// canvasLines is what cv's View draws, a string a line, but each run of
// cells of one look rendered at once: ntcharts renders every cell alone, a
// style's Render a cell, which was most of the trend chart's frame (1.3 ms
// of a dashboard's poll at a million queues, and its garbage).
func canvasLines(cv *canvas.Model) []string {
	w, h := cv.Width(), cv.Height()
	out := make([]string, 0, h)
	var sb strings.Builder
	run := make([]rune, 0, w)
	for y := range h {
		sb.Reset()
		var st, prev lipgloss.Style
		for x := range w {
			c := cv.Cell(canvas.Point{X: x, Y: y})
			// a cell styled as the one before it (the same style copied:
			// the same bytes) looks as the run does, with no look at its
			// nine properties (whose getters copy the 400-byte style each:
			// most of the chart's frame)
			if len(run) > 0 && !sameBytes(&prev, &c.Style) && !sameLook(st, c.Style) {
				sb.WriteString(st.Render(string(run)))
				run = run[:0]
			}
			prev = c.Style
			if len(run) == 0 {
				st = c.Style
			}
			if c.Rune == 0 {
				c.Rune = ' '
			}
			run = append(run, c.Rune)
		}
		if len(run) > 0 {
			sb.WriteString(st.Render(string(run)))
			run = run[:0]
		}
		out = append(out, sb.String())
	}
	return out
}

// sameLook reports whether a and b draw a cell alike: the same colours and
// attributes (the chart's styles set nothing else; TestCanvasLinesLookAlike
// holds every pair of its cells this calls alike to one rendering).
func sameLook(a, b lipgloss.Style) bool {
	return a.GetForeground() == b.GetForeground() && a.GetBackground() == b.GetBackground() &&
		a.GetBold() == b.GetBold() && a.GetFaint() == b.GetFaint() && a.GetItalic() == b.GetItalic() &&
		a.GetUnderline() == b.GetUnderline() && a.GetReverse() == b.GetReverse() &&
		a.GetBlink() == b.GetBlink() && a.GetStrikethrough() == b.GetStrikethrough()
}

// sameBytes reports whether a and b are the same bytes: one style copied,
// so they look alike (styles that look alike may differ in bytes; sameLook
// tells those).
func sameBytes(a, b *lipgloss.Style) bool {
	n := unsafe.Sizeof(*a)
	return string(unsafe.Slice((*byte)(unsafe.Pointer(a)), n)) == string(unsafe.Slice((*byte)(unsafe.Pointer(b)), n))
}
