package ui

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	tslc "github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
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
					if (sameLook(a, b) || sameBytes(&a, &b)) && a.Render("x") != b.Render("x") {
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

// The trend pane keeps its chart from frame to frame at one size, its
// ranges and data set anew each time: every frame draws the very lines
// (colours in) a chart made new for it draws, whatever came before it:
// sizes that change and stay, the minute and the hour, peaks that rise
// and fall, runs cut by gaps, points before the span (which stretch a new
// chart's range) and none at all.
func TestChartKeptDrawsAsNew(t *testing.T) {
	c := session(0)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	c.th, _ = theme.New(r, "dark")
	kept := &trendPane{c: c}
	rng := rand.New(rand.NewPCG(7, 8))
	now := time.Unix(1_800_000_000, 0)
	sizes := [][2]int{{40, 8}, {98, 14}, {60, 10}}
	size := sizes[0]
	made := 0
	for step := range 300 {
		now = now.Add(time.Duration(1+rng.IntN(3)) * time.Second)
		c.snap.TakenAt = now
		if rng.IntN(4) == 0 {
			size = sizes[rng.IntN(len(sizes))]
		}
		kept.long = rng.IntN(5) == 0
		span := kept.span()
		peak := []int{0, 3, 90, 5_000, 2_000_000}[rng.IntN(5)]
		var pend, act [][]tslc.TimePoint
		for range rng.IntN(4) {
			var rp, ra []tslc.TimePoint
			at := now.Add(-span - time.Duration(rng.IntN(3))*span/4)
			for range 1 + rng.IntN(40) {
				at = at.Add(time.Duration(1+rng.IntN(int(span/time.Second)/10+1)) * time.Second)
				if at.After(now) {
					break
				}
				rp = append(rp, tslc.TimePoint{Time: at, Value: float64(rng.IntN(peak + 1))})
				ra = append(ra, tslc.TimePoint{Time: at, Value: float64(rng.IntN(peak/2 + 1))})
			}
			if len(rp) > 0 {
				pend, act = append(pend, rp), append(act, ra)
			}
		}
		before := kept.lc
		got := canvasLines(&kept.chartModel(pend, act, size[0], size[1]).Canvas)
		if kept.lc != before {
			made++
		}
		fresh := &trendPane{c: c, long: kept.long}
		want := canvasLines(&fresh.chartModel(pend, act, size[0], size[1]).Canvas)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("step %d (%v, span %v, peak %d, %d runs): the kept chart draws\n%s\na new one\n%s",
				step, size, span, peak, len(pend), ansi.Strip(strings.Join(got, "\n")), ansi.Strip(strings.Join(want, "\n")))
		}
	}
	if made == 0 || made > 150 {
		t.Fatalf("the chart was made %d times in 300 frames: it is not kept while its size stays, or never made", made)
	}
}
