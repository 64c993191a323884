package ui

import (
	"io"
	"strings"
	"testing"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// The trend chart drawn a run of cells at a time reads as ntcharts draws
// it a cell at a time: the same text line by line, and every two cells it
// renders in one run render alike on their own (so each cell keeps its
// colour); in colour, with pending and active crossing and gaps.
func TestCanvasLinesLookAlike(t *testing.T) {
	for _, name := range []string{"dark", "light"} {
		c := session(0)
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.ANSI256)
		c.th, _ = theme.New(r, name)
		withPast(c.snap, 60, map[string]func(i int) ([model.Metrics]int64, bool){
			"orders": func(i int) ([model.Metrics]int64, bool) {
				return [model.Metrics]int64{model.MPending: int64(40 + (i*7)%30), model.MActive: int64(70 - (i*5)%50)}, i%17 != 5
			},
		})
		c.sel = c.snap.Queue("orders")
		p := &trendPane{c: c}
		past, ok := c.snap.Series(c.sel)
		if !ok {
			t.Fatal("no past for orders")
		}
		pend, act := p.points(&past)
		for _, size := range [][2]int{{40, 8}, {98, 14}} {
			m := p.chartModel(pend, act, size[0], size[1])
			want := strings.Split(m.View(), "\n")
			got := canvasLines(&m.Canvas)
			if len(got) != len(want) {
				t.Fatalf("%s %v: %d lines, ntcharts draws %d", name, size, len(got), len(want))
			}
			styled := 0
			for y := range got {
				if ansi.Strip(got[y]) != ansi.Strip(want[y]) {
					t.Errorf("%s %v line %d: %q, ntcharts %q", name, size, y, ansi.Strip(got[y]), ansi.Strip(want[y]))
				}
				if got[y] != ansi.Strip(got[y]) {
					styled++
				}
				for x := 1; x < m.Canvas.Width(); x++ {
					a, b := m.Canvas.Cell(canvas.Point{X: x - 1, Y: y}).Style, m.Canvas.Cell(canvas.Point{X: x, Y: y}).Style
					if sameLook(a, b) && a.Render("x") != b.Render("x") {
						t.Fatalf("%s %v: cells (%d,%d) and (%d,%d) called alike render %q and %q", name, size, x-1, y, x, y, a.Render("x"), b.Render("x"))
					}
				}
			}
			if styled == 0 {
				t.Fatalf("%s %v: no line in colour: the test proves nothing", name, size)
			}
		}
	}
}
