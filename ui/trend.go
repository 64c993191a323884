package ui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"time"

	tslc "github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// trendPane is the selected queue's past: pending and active over the last
// minute (every poll) or the last hour (a bucket a minute: pending's
// highest, and its last), with a time axis and a y-scale, and the trend in
// words under it. Its span is switched by a global key (t), since the pane
// takes no focus. The chart is ntcharts' time-series line chart in braille;
// a mono or dumb terminal gets ASCII sparklines with their scale instead.
type trendPane struct {
	c       *common
	w, h    int
	focused bool
	long    bool // the hour, not the minute
	// the last frame, kept while its inputs stay: frames between polls
	// draw no chart again
	cache    string
	cacheKey trendKey
	// the chart, kept from frame to frame while its size stays: a new one
	// each poll allocated its canvas twice (New, then Clear when drawn), a
	// twentieth of what the dashboard allocates a poll. Its labels read the
	// time and unit of the frame being drawn.
	lc     *tslc.Model
	lcTh   *theme.Theme // the theme it was made in (its axes' style)
	lcNow  time.Time
	lcUnit time.Duration
}

type trendKey struct {
	snap *model.Snapshot
	sel  string
	long bool
	w, h int
	foc  bool
}

func (p *trendPane) SetFocus(f bool)           { p.focused = f }
func (p *trendPane) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *trendPane) Update(tea.Msg) tea.Cmd    { return nil }
func (p *trendPane) ShortHelp() []key.Binding  { return nil }
func (p *trendPane) FullHelp() [][]key.Binding { return nil }

func (p *trendPane) span() time.Duration {
	if p.long {
		return time.Hour
	}
	return time.Minute
}

func (p *trendPane) View() string {
	k := trendKey{snap: p.c.snap, long: p.long, w: p.w, h: p.h, foc: p.focused}
	if p.c.sel != nil {
		k.sel = p.c.sel.Name
	}
	if k != p.cacheKey || p.cache == "" {
		p.cache, p.cacheKey = p.draw(), k
	}
	return p.cache
}

func (p *trendPane) draw() string {
	th := p.c.th
	q := p.c.sel
	title := "Trend"
	if q == nil || p.c.snap == nil {
		return box(focusBorder(th, p.focused), title, nil, p.w, p.h)
	}
	title += fmt.Sprintf(" · %s · last %s (t: %s)", textgate.Bounded(q.Name, 30), ago(p.span()), map[bool]string{false: "1h", true: "1m"}[p.long])
	past, ok := p.c.snap.Series(q)
	if !ok || len(past.Fine) < 2 {
		return box(focusBorder(th, p.focused), title, []string{th.Dim.Render(" gathering its past: a figure a poll…")}, p.w, p.h)
	}
	in, rows := p.w-2, p.h-2
	tr := p.c.snap.Trend(q)
	clauses := tr.Clauses()
	if tr.SinceExpiredZero > 0 {
		at := ""
		if tr.AtLeast {
			at = "at least "
		}
		clauses = append(clauses, fmt.Sprintf("expired for %s%s", at, ago(tr.SinceExpiredZero)))
	}
	words := wrapClauses(clauses, in-1, max(1, rows/3))
	chartRows := rows - len(words)
	pend, act := p.points(&past)
	var lines []string
	if th.Glyphs {
		lines = p.ascii(pend, act, in, chartRows)
	} else {
		lines = p.chart(pend, act, in, chartRows)
	}
	for len(lines) < chartRows {
		lines = append(lines, "")
	}
	lines = lines[:chartRows]
	for _, w := range words {
		lines = append(lines, th.Dim.Render(" "+w))
	}
	return box(focusBorder(th, p.focused), title, lines, p.w, p.h)
}

// wrapClauses puts clauses on lines of w cells, joined by " · " while
// they fit, a new line where they do not, so a figure is never cut (a
// clause wider than w alone is left for the box to cut); at most max
// lines, the last clauses dropped past them.
func wrapClauses(clauses []string, w, most int) []string {
	var out []string
	for _, c := range clauses {
		if n := len(out); n > 0 && ansi.StringWidth(out[n-1])+3+ansi.StringWidth(c) <= w {
			out[n-1] += " · " + c
			continue
		}
		if len(out) == most {
			break
		}
		out = append(out, c)
	}
	return out
}

// points are pending's and active's points over the span, split into runs
// at gaps (a poll without a value is drawn as nothing, never as zero).
func (p *trendPane) points(s *model.Series) (pend, act [][]tslc.TimePoint) {
	type pt struct {
		at   int64
		p, a int32
	}
	var pts []pt
	if p.long {
		for _, b := range s.Coarse {
			pts = append(pts, pt{b.AtMs, b.PendMax, b.Active})
		}
	} else {
		for _, x := range s.Fine {
			pts = append(pts, pt{x.AtMs, x.V[model.MPending], x.V[model.MActive]})
		}
	}
	var rp, ra []tslc.TimePoint
	flush := func() {
		if len(rp) > 0 {
			pend, act = append(pend, rp), append(act, ra)
		}
		rp, ra = nil, nil
	}
	for _, x := range pts {
		if x.p == model.Gap {
			flush()
			continue
		}
		t := time.UnixMilli(x.at)
		rp = append(rp, tslc.TimePoint{Time: t, Value: float64(x.p)})
		ra = append(ra, tslc.TimePoint{Time: t, Value: float64(max(0, x.a))})
	}
	flush()
	return pend, act
}

// chart draws the runs in braille with a time axis (seconds or minutes
// before now) and a y-scale from zero, under a legend.
func (p *trendPane) chart(pend, act [][]tslc.TimePoint, w, h int) []string {
	c := p.chartModel(pend, act, w, h-1) // h-1: the legend's row
	lines := canvasLines(&c.Canvas)
	legend := " " + p.c.th.Title.Render("⣿ pending") + "  " + p.c.th.Good.Render("⣿ active")
	return append([]string{legend}, lines...)
}

// chartModel is the chart of the runs, drawn, w×h: the pane's own,
// made again only at a new size, its ranges and data set anew each frame
// (TestChartKeptDrawsAsNew: the same lines as a chart made new).
func (p *trendPane) chartModel(pend, act [][]tslc.TimePoint, w, h int) *tslc.Model {
	th := p.c.th
	now := p.c.snap.TakenAt
	peak := 1.0
	for _, runs := range [][][]tslc.TimePoint{pend, act} {
		for _, r := range runs {
			for _, x := range r {
				peak = max(peak, x.Value)
			}
		}
	}
	// the labels are round: to the second over a minute, to the minute
	// over an hour (never −50m01s)
	p.lcNow, p.lcUnit = now, time.Second
	if p.span() > 10*time.Minute {
		p.lcUnit = time.Minute
	}
	from := now.Add(-p.span())
	if p.lc == nil || p.lc.Width() != w || p.lc.Height() != h || p.lcTh != th {
		rel := func(_ int, v float64) string {
			return "−" + ago(p.lcNow.Sub(time.Unix(int64(v), 0)).Round(p.lcUnit))
		}
		c := tslc.New(w, h, tslc.WithXLabelFormatter(rel), tslc.WithYLabelFormatter(func(_ int, v float64) string { return human(int64(v)) }),
			tslc.WithAxesStyles(th.Dim, th.Dim), tslc.WithTimeRange(from, now), tslc.WithYRange(0, peak*1.1),
			tslc.WithXYSteps(3, 2))
		p.lc, p.lcTh = &c, th
	} else {
		p.lc.ClearAllData()
		p.lc.SetTimeRange(from, now)
		p.lc.SetYRange(0, peak*1.1)
	}
	c := p.lc
	c.SetViewTimeAndYRange(from, now, 0, peak*1.1)
	var names []string
	for i, runs := range [][][]tslc.TimePoint{act, pend} { // pending drawn last, on top
		for k, r := range runs {
			name := fmt.Sprintf("%d-%d", i, k)
			names = append(names, name)
			c.SetDataSetStyle(name, [2]lipglossStyle{th.Good, th.Title}[i])
			for _, x := range r {
				c.PushDataSet(name, x)
			}
		}
	}
	if len(names) == 0 {
		c.Clear() // ntcharts draws nothing, not even the axes, for no data
	}
	c.DrawBrailleDataSets(names)
	return c
}

// ascii draws pending and active as sparklines, each with its range.
func (p *trendPane) ascii(pend, act [][]tslc.TimePoint, w, h int) []string {
	row := func(label string, runs [][]tslc.TimePoint) string {
		var vs []int32
		lo, hi := -1.0, 0.0
		for k, r := range runs {
			if k > 0 {
				vs = append(vs, model.Gap)
			}
			for _, x := range r {
				vs = append(vs, int32(x.Value))
				if lo < 0 || x.Value < lo {
					lo = x.Value
				}
				hi = max(hi, x.Value)
			}
		}
		vs = vs[max(0, len(vs)-(w-24)):]
		return fmt.Sprintf(" %-8s %s  %s..%s", label, sparkline(p.c.th, vs), human(int64(max(0, lo))), human(int64(hi)))
	}
	lines := []string{row("pending", pend), row("active", act)}
	return lines[:min(len(lines), h)]
}

// lipglossStyle names the style type the chart takes.
type lipglossStyle = borderStyle
