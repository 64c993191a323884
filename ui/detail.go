package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

type detailKeys struct {
	Scroll, Page, Back, Requeue, Quit key.Binding
}

func newDetailKeys() detailKeys {
	return detailKeys{
		Scroll:  bind([]string{"up", "down", "k", "j"}, "↑/↓", "scroll"),
		Page:    bind([]string{"pgup", "pgdown"}, "pgup/pgdn", "page"),
		Back:    bind([]string{"esc", "enter"}, "esc", "back"),
		Requeue: bind([]string{"r"}, "r", "requeue job"),
		Quit:    bind([]string{"q"}, "q", "quit"),
	}
}

func (k detailKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Scroll, k.Page, k.Back, k.Requeue, k.Quit}
}
func (k detailKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Scroll, k.Page}, {k.Back, k.Requeue}, {k.Quit}}
}

// jobMsg answers the read of one job row; it names its job, and the
// detail takes it only when that job is the one on screen.
type jobMsg struct {
	queue, id string
	d         model.JobDetail
	err       error
}

var errInvalidID = fmt.Errorf("this member of the set is not a valid job id: it is shown, never used to build a key")

// detailView is the job detail overlay: the job as the pane showed it, its
// row once read, the payload in a viewport.
type detailView struct {
	c      *common
	keys   detailKeys
	q      model.Queue
	job    model.Job
	active bool
	d      model.JobDetail
	err    error
	done   bool
	vp     viewport.Model
	w, h   int
}

func newDetail(c *common, q model.Queue, j model.Job, active, actions bool) *detailView {
	d := &detailView{c: c, keys: newDetailKeys(), q: q, job: j, active: active, vp: viewport.New(10, 3)}
	d.keys.Requeue.SetEnabled(actions && d.requeueable())
	d.vp.SetContent("reading the job row…")
	if !j.Valid {
		d.loaded(jobMsg{queue: q.Name, id: j.ID, err: errInvalidID})
	}
	return d
}

// requeueable: the job is active and its id and attempts are readable, so
// r can fence it.
func (d *detailView) requeueable() bool { return d.active && d.job.Valid && d.job.AttemptsOK }

func (d *detailView) SetSize(w, h int) {
	d.w, d.h = w, h
	d.vp.Width, d.vp.Height = max(10, w-4), max(3, h-14)
}

func (d *detailView) ShortHelp() []key.Binding  { return d.keys.ShortHelp() }
func (d *detailView) FullHelp() [][]key.Binding { return d.keys.FullHelp() }

// answers reports whether msg is the answer for the job on screen.
func (d *detailView) answers(msg jobMsg) bool { return msg.queue == d.q.Name && msg.id == d.job.ID }

func (d *detailView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case jobMsg:
		if d.answers(msg) {
			d.loaded(msg)
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, d.keys.Back):
			return d.c.emit(closeMsg{})
		case key.Matches(msg, d.keys.Quit):
			return tea.Quit
		case key.Matches(msg, d.keys.Requeue):
			// the job on screen, with the attempts seen when it was opened
			d.c.emit(closeMsg{})
			return d.c.emit(requeueMsg{q: d.q, job: d.job})
		}
		var cmd tea.Cmd
		d.vp, cmd = d.vp.Update(msg)
		return cmd
	}
	return nil
}

// loaded takes the job row; the payload is sanitised, wrapped to the view
// and bounded (the server sent at most a preview).
func (d *detailView) loaded(msg jobMsg) {
	th := d.c.th
	d.d, d.err, d.done = msg.d, msg.err, true
	switch {
	case msg.err != nil:
		d.vp.SetContent(th.Bad.Render(textgate.Text(msg.err.Error())))
	case !msg.d.Exists:
		d.vp.SetContent(th.Warn.Render("the job row does not exist (acked, drained, or never written)"))
	default:
		body := textgate.Lines(msg.d.Payload)
		if msg.d.PayloadLen > len(msg.d.Payload) {
			body += "\n" + th.Warn.Render(fmt.Sprintf("… preview of the first %s of %s", textgate.Size(len(msg.d.Payload)), textgate.Size(msg.d.PayloadLen)))
		}
		d.vp.SetContent(ansi.Wrap(body, d.vp.Width, ""))
	}
}

func (d *detailView) View() string {
	th := d.c.th
	q, j := d.q, d.job
	row := func(k, v string) string { return th.Header.Render(fmt.Sprintf(" %-9s", k)) + " " + v }
	lines := []string{
		row("id", textgate.Text(j.ID)),
		row("queue", textgate.Text(q.Name)+th.Dim.Render(fmt.Sprintf(" · slot %d · node %s", q.Slot, textgate.Text(q.Node)))),
		row("row", d.rowKey()),
		row("state", d.state()),
		row("attempts", d.attempts()),
		row("lease", d.lease()),
		row("payload", d.size()+th.Dim.Render(" · ↑↓ pgup pgdn scroll · esc back")),
		"",
	}
	lines = append(lines, strings.Split(d.vp.View(), "\n")...)
	return box(th.BorderFocus, "Job", lines, d.w, d.h)
}

// rowKey is the job row's key, as the poller put it in the model.
func (d *detailView) rowKey() string {
	if d.done && d.d.Key != "" {
		return textgate.Text(d.d.Key)
	}
	if !d.job.Valid {
		return "(not built: the id fails the gate)"
	}
	return "…"
}

func (d *detailView) state() string {
	if d.done && d.d.Exists {
		return textgate.Bounded(d.d.State, 40) + d.c.th.Dim.Render(" (row)")
	}
	if d.active {
		return "active"
	}
	return "pending"
}

func (d *detailView) attempts() string {
	th := d.c.th
	if d.done && d.d.Exists {
		if _, err := strconv.ParseInt(d.d.Attempts, 10, 64); err != nil {
			return th.Invalid.Render("unreadable: "+textgate.Bounded(d.d.Attempts, 40)) +
				th.Dim.Render(" (row: not an integer, so no fence: it cannot be requeued from here)")
		}
		return textgate.Bounded(d.d.Attempts, 40) + th.Dim.Render(" (row, the fence)")
	}
	if !d.job.AttemptsOK {
		return th.Invalid.Render("unreadable: " + textgate.Bounded(d.job.AttemptsRaw, 40))
	}
	return fmt.Sprint(d.job.Attempts)
}

func (d *detailView) lease() string {
	if !d.active {
		return "–"
	}
	now := time.UnixMilli(d.q.ServerTimeMs)
	dl := time.UnixMilli(d.job.Score)
	if dl.After(now) {
		return fmt.Sprintf("%s left (deadline %s)", ago(dl.Sub(now)), dl.UTC().Format("15:04:05.000Z"))
	}
	return d.c.th.Warn.Render(fmt.Sprintf("expired %s ago (deadline %s)", ago(now.Sub(dl)), dl.UTC().Format("15:04:05.000Z")))
}

func (d *detailView) size() string {
	if !d.done || !d.d.Exists {
		return "…"
	}
	s := textgate.Size(d.d.PayloadLen)
	if d.d.PayloadLen > len(d.d.Payload) {
		s += d.c.th.Warn.Render(fmt.Sprintf(" (showing the first %s)", textgate.Size(len(d.d.Payload))))
	}
	return s
}
