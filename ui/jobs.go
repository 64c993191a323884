package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

type jobKeys struct {
	moveKeys
	Open, Requeue key.Binding
}

func newJobKeys() jobKeys {
	return jobKeys{moveKeys: newMoveKeys(),
		Open:    bind([]string{"enter"}, "enter", "open"),
		Requeue: bind([]string{"r"}, "r", "requeue job")}
}

func (k jobKeys) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Open, k.Requeue} }
func (k jobKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top}, {k.Bottom, k.PageUp, k.PageDown}, {k.Open, k.Requeue}}
}

// jobsPane is the pending or the active pane of the selected queue.
type jobsPane struct {
	c       *common
	keys    jobKeys
	active  bool
	w, h    int
	focused bool
	cur     int
	queue   string // the queue the cursor belongs to
	filter  textFilter
	// shownFrom is the first job drawn last, where a click's rows count
	// from (the pane alone or in the compact tab box: the drawing knows)
	shownFrom int
}

func newJobsPane(c *common, active bool) *jobsPane {
	p := &jobsPane{c: c, keys: newJobKeys(), active: active, filter: newTextFilter("part of a job id")}
	p.keys.Requeue.SetEnabled(active) // r acts on active jobs only
	return p
}

func (p *jobsPane) SetSize(w, h int) { p.w, p.h = w, h }
func (p *jobsPane) SetFocus(f bool)  { p.focused = f }
func (p *jobsPane) capturing() bool  { return p.filter.capturing() }

func (p *jobsPane) ShortHelp() []key.Binding { return p.filter.shortHelp(p.keys) }
func (p *jobsPane) FullHelp() [][]key.Binding {
	if !p.active {
		return p.filter.fullHelp(pendingKeys{p.keys})
	}
	return p.filter.fullHelp(p.keys)
}

// startFilter opens the pane's filter: ids containing the text typed (any
// case), among the jobs read.
func (p *jobsPane) startFilter() tea.Cmd {
	p.cur = 0
	return p.filter.start()
}

// follow takes the selection: another queue starts at its first job. The
// root calls it when the selection moves; drawing never moves the cursor.
func (p *jobsPane) follow(q *model.Queue) {
	if q != nil && q.Name != p.queue {
		p.queue, p.cur = q.Name, 0
	}
}

// jobs is the selected queue and the jobs of this pane, filtered.
func (p *jobsPane) jobs() (*model.Queue, []model.Job) {
	q := p.c.sel
	if q == nil {
		return nil, nil
	}
	jobs := q.PendingJobs()
	if p.active {
		jobs = q.ActiveJobs()
	}
	f := strings.ToUpper(p.filter.Value())
	if f == "" {
		return q, jobs
	}
	var out []model.Job
	for _, j := range jobs {
		if strings.Contains(strings.ToUpper(j.ID), f) {
			out = append(out, j)
		}
	}
	return q, out
}

func (p *jobsPane) Update(msg tea.Msg) tea.Cmd {
	if mm, ok := msg.(tea.MouseMsg); ok { // a click on a job puts the cursor there (under the border and the header)
		_, jobs := p.jobs()
		if i := p.shownFrom + mm.Y - 2; mm.Y >= 2 && i < len(jobs) {
			p.cur = i
		}
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if p.filter.capturing() {
		p.cur = 0
		return p.filter.key(km)
	}
	q, jobs := p.jobs()
	if q == nil {
		return nil
	}
	switch {
	case key.Matches(km, p.keys.Open) && p.cur < len(jobs):
		return p.c.emit(openJobMsg{q: *q, job: jobs[p.cur], active: p.active})
	case key.Matches(km, p.keys.Requeue):
		if p.cur >= len(jobs) {
			return p.c.emit(flashMsg{"no active job to requeue here", true})
		}
		return p.c.emit(requeueMsg{q: *q, job: jobs[p.cur]})
	}
	if n, ok := p.keys.move(km, p.cur, len(jobs), 5); ok {
		p.cur = n
	}
	return nil
}

func (p *jobsPane) title() string {
	if p.active {
		return "Active"
	}
	return "Pending"
}

func (p *jobsPane) View() string {
	q, _ := p.jobs()
	b := focusBorder(p.c.th, p.focused)
	if q == nil {
		return box(b, p.title(), nil, p.w, p.h)
	}
	lines, pos := p.lines(p.w-2, p.h-2)
	head := p.title()
	if p.active {
		head += ", by lease"
	}
	return box(b, fitTitle(head, q.Name, pos, p.filterTitle(), p.w), lines, p.w, p.h)
}

// fitTitle composes a job pane's title so that it fits w without cutting a
// figure: the queue's name is shortened first, then the position (rows
// 1–5 of 26) goes whole; the box cuts only what is left, never a number.
func fitTitle(head, name, pos, filter string, w int) string {
	room := w - 6 // the corners, the dashes and the spaces around the title
	compose := func(n int, withPos bool) string {
		t := head + " · " + textgate.Bounded(name, n)
		if withPos && pos != "" {
			t += " · " + pos
		}
		return t + filter
	}
	for _, n := range []int{40, 20, 12} {
		if t := compose(n, true); ansi.StringWidth(t) <= room {
			return t
		}
	}
	return compose(20, false)
}

// jobCols is how a job pane spends its width: the id whole when it fits
// beside the time column, the attempts column only when there is room
// for it too.
type jobCols struct{ id, when, att int }

const idWidth = 29 // JOB and a ULID

func (p *jobsPane) cols(w int) jobCols {
	c := jobCols{id: idWidth, when: 8, att: 8}
	if p.active {
		c.when = 18 // "stuck for 10m30s"
	}
	rest := w - 1 - 2 // the leading space, the gaps
	switch {
	case rest >= c.id+c.when+c.att+2:
	case rest >= c.id+c.when:
		c.att = 0
	default:
		c.att, c.id = 0, max(10, rest-c.when)
	}
	return c
}

// header names the pane's columns.
func (p *jobsPane) header(c jobCols) string {
	when := "WAITING"
	if p.active {
		when = "LEASE"
	}
	h := " " + fit("ID", c.id) + "  " + fitLeft(when, c.when)
	if p.active {
		h = " " + fit("ID", c.id) + "  " + fit(when, c.when)
	}
	if c.att > 0 {
		h += "  " + fitLeft("ATTEMPTS", c.att)
	}
	return p.c.th.Header.Render(h)
}

// lines renders the jobs for w×rows: a header, then a job a line; pos
// says which rows are shown when not all are ("" when all are, or none:
// it belongs to this drawing, never to the queue drawn before).
func (p *jobsPane) lines(w, rows int) (lines []string, pos string) {
	th := p.c.th
	q, jobs := p.jobs()
	switch {
	case q == nil:
		return nil, ""
	case !q.Detail:
		return []string{th.Dim.Render(" reading this queue's jobs…")}, ""
	case len(jobs) == 0 && p.active:
		return []string{th.Dim.Render(" no active jobs")}, ""
	case len(jobs) == 0:
		return []string{th.Dim.Render(" nothing pending")}, ""
	}
	now := time.UnixMilli(q.ServerTimeMs)
	c := p.cols(w)
	lines = []string{p.header(c)}
	rows--
	off := max(0, p.cur-rows+1)
	p.shownFrom = off
	for i := off; i < min(len(jobs), off+rows); i++ {
		line := fit(p.jobLine(jobs[i], now, c), w)
		if p.focused && i == p.cur {
			line = th.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	total := q.Pending
	if p.active {
		total = q.Active
	}
	shown := off + len(lines) - 1
	if more := total - int64(shown); more > 0 && len(lines) <= rows {
		lines = append(lines, th.Dim.Render(fmt.Sprintf(" … %s more", commas(more))))
	}
	if int64(rows) < total {
		pos = position(off, shown, int(total))
	}
	return lines, pos
}

func (p *jobsPane) jobLine(j model.Job, now time.Time, c jobCols) string {
	th := p.c.th
	id := fit(shortID(j.ID, c.id), c.id)
	if !j.Valid {
		id = th.Invalid.Render(fit(textgate.Bounded(j.ID, 12)+" ⚠ invalid id", c.id))
	}
	att := ""
	if c.att > 0 {
		a := fitLeft(fmt.Sprint(j.Attempts), c.att)
		if !j.AttemptsOK {
			a = th.Invalid.Render(fitLeft(attemptsCell(j), c.att)) // cut once, by fitLeft
		}
		att = "  " + a
	}
	if !p.active {
		if j.ScoreOff != 0 { // no enqueue time: the score is ±inf or past any time
			return " " + id + "  " + th.Warn.Render(fitLeft(map[bool]string{true: "+inf", false: "-inf"}[j.ScoreOff > 0], c.when)) + att
		}
		return " " + id + "  " + fitLeft(ago(now.Sub(time.UnixMilli(j.Score))), c.when) + att
	}
	if j.ScoreOff != 0 {
		return " " + id + "  " + th.Warn.Render(fit(model.DeadlineWords(j.ScoreOff), c.when)) + att
	}
	when := "ends in " + ago(time.UnixMilli(j.Score).Sub(now))
	if d := time.UnixMilli(j.Score).Sub(now); d <= 0 {
		when = th.Warn.Render(fit("stuck for "+ago(-d), c.when))
	}
	return " " + id + "  " + fit(when, c.when) + att
}

// jobTabs is the compact layout's lower box: the pending or the active
// pane as a tab (whichever has the focus, else active), the lease timeline
// under it. It draws; the two panes keep their keys.
type jobTabs struct {
	pending, active *jobsPane
	timeline        *timeline
	w, h            int
}

func (t *jobTabs) SetSize(w, h int) {
	t.w, t.h = w, h
	t.pending.SetSize(w, h)
	t.active.SetSize(w, h)
}
func (t *jobTabs) Update(tea.Msg) tea.Cmd { return nil }

// shown is the pane the box draws: pending when it has the focus, else
// active.
func (t *jobTabs) shown() Component {
	if t.pending.focused {
		return t.pending
	}
	return t.active
}
func (t *jobTabs) ShortHelp() []key.Binding  { return nil }
func (t *jobTabs) FullHelp() [][]key.Binding { return nil }

func (t *jobTabs) View() string {
	p, tabs := t.active, "Pending │ [Active]"
	if t.pending.focused {
		p, tabs = t.pending, "[Pending] │ Active"
	}
	b := focusBorder(p.c.th, p.focused)
	q := p.c.sel
	if q == nil {
		return box(b, tabs, nil, t.w, t.h)
	}
	rows := t.h - 2 - 2
	lines, pos := p.lines(t.w-2, rows)
	for len(lines) < rows {
		lines = append(lines, "")
	}
	lines = append(lines, t.timeline.lines(t.w-2, 2)...)
	return box(b, fitTitle(tabs, q.Name, pos, p.filterTitle(), t.w), lines, t.w, t.h)
}

// filterTitle says the pane's filter, and that it narrows the jobs read.
func (p *jobsPane) filterTitle() string {
	if p.filter.Value() == "" {
		return ""
	}
	_, jobs := p.jobs()
	return fmt.Sprintf(" · filter /%s: %d of the jobs read", textgate.Bounded(p.filter.Value(), 30), len(jobs))
}

// attemptsCell says in a word or two why a job's attempts cannot be read
// (the detail says it whole): none, no hash, or the field's text.
func attemptsCell(j model.Job) string {
	switch j.AttemptsWhy {
	case model.AttemptsMissing:
		return "none"
	case model.AttemptsWrongType:
		return "no hash"
	case model.AttemptsNotNumber:
		return textgate.Text(j.AttemptsRaw)
	}
	return "?"
}
