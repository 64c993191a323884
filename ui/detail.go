package ui

import (
	"bytes"
	"encoding/json"
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
	Scroll, Page, Back, Requeue, Copy, Quit key.Binding
}

func newDetailKeys() detailKeys {
	return detailKeys{
		Scroll:  bind([]string{"up", "down", "k", "j"}, "↑/↓", "scroll"),
		Page:    bind([]string{"pgup", "pgdown"}, "pgup/pgdn", "page"),
		Back:    bind([]string{"esc", "enter"}, "esc", "back"),
		Requeue: bind([]string{"r"}, "r", "requeue job"),
		Copy:    bind([]string{"c"}, "c", "copy the job id"),
		Quit:    bind([]string{"q"}, "q", "quit"),
	}
}

func (k detailKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Scroll, k.Page, k.Back, k.Requeue, k.Copy, k.Quit}
}
func (k detailKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Scroll, k.Page}, {k.Back, k.Requeue}, {k.Copy, k.Quit}}
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
	c       *common
	keys    detailKeys
	q       model.Queue
	job     model.Job
	active  bool
	d       model.JobDetail
	err     error
	done    bool
	vp      viewport.Model
	w, h    int
	seenAt  time.Time // local time of the snapshot q is from
	found   bool      // opened by a find: no pane said its state, the row does
	actions bool
}

func newDetail(c *common, q model.Queue, j model.Job, active, actions bool) *detailView {
	d := &detailView{c: c, keys: newDetailKeys(), q: q, job: j, active: active, vp: viewport.New(10, 3), seenAt: c.now()}
	if c.snap != nil && !c.snap.TakenAt.IsZero() {
		d.seenAt = c.snap.TakenAt
	}
	d.actions = actions
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
	d.vp.Width, d.vp.Height = max(10, w-4), max(3, h-2-headerRows)
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
		case key.Matches(msg, d.keys.Copy):
			if !d.job.Valid {
				return d.c.emit(flashMsg{"this id is invalid: it is shown escaped and never copied", true})
			}
			return d.c.emit(copyMsg{text: d.job.ID, what: "job id"})
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
	if d.found && msg.err == nil && msg.d.InActive { // found active: r may fence it with what the row says
		if n, err := strconv.ParseInt(msg.d.Attempts, 10, 64); err == nil {
			d.active = true
			d.job.Score, d.job.ScoreOff, d.job.Attempts, d.job.AttemptsOK = msg.d.ActiveScore, msg.d.ActiveOff, n, true
			d.keys.Requeue.SetEnabled(d.actions && d.requeueable())
		}
	}
	switch {
	case msg.err != nil:
		d.vp.SetContent(th.Bad.Render(textgate.Text(msg.err.Error())))
	case !msg.d.Exists:
		d.vp.SetContent(th.Warn.Render("the job row does not exist (acked, drained, or never written)"))
	default:
		body := strings.Join(d.fieldLines(d.vp.Width), "\n")
		if body != "" {
			body += "\n"
		}
		body += ansi.Wrap(textgate.Lines(prettyJSON(msg.d.Payload)), d.vp.Width, "")
		if msg.d.PayloadLen > len(msg.d.Payload) {
			body += "\n" + th.Warn.Render(fmt.Sprintf("… preview of the first %s of %s", textgate.Size(len(msg.d.Payload)), textgate.Size(msg.d.PayloadLen)))
		}
		d.vp.SetContent(body)
	}
}

// headerRows is how many lines the detail shows above its scrolled body.
const headerRows = 11

func (d *detailView) View() string {
	th := d.c.th
	q, j := d.q, d.job
	row := func(k, v string) string { return th.Header.Render(fmt.Sprintf(" %-9s", k)) + " " + v }
	lines := []string{
		row("id", textgate.Text(j.ID)),
		row("enqueued", d.enqueued()),
		row("queue", textgate.Text(q.Name)+th.Dim.Render(fmt.Sprintf(" · slot %d · node %s", q.Slot, textgate.Text(q.Node.Addr())))),
		row("row", d.rowKey()),
		row("state", d.state()),
		row("attempts", d.attempts()),
		row("lease", d.lease()),
		row("position", d.position()),
		row("fields", d.fieldsLine()),
		row("payload", d.size()+th.Dim.Render(" · ↑↓ pgup pgdn scroll · esc back")),
		"",
	}
	lines = append(lines, strings.Split(d.vp.View(), "\n")...)
	return box(th.BorderFocus, "Job", lines, d.w, d.h)
}

// serverNow is the owning node's clock now: the snapshot's reading moved
// on by the local time since that snapshot, so "stuck for" keeps counting
// between polls.
func (d *detailView) serverNow() time.Time {
	return time.UnixMilli(d.q.ServerTimeMs).Add(d.c.now().Sub(d.seenAt))
}

// enqueued is the id's time: a job id is a ULID, minted when the job was
// enqueued (a requeue keeps the id, so this is the first enqueue).
func (d *detailView) enqueued() string {
	at, ok := model.IDTime(d.job.ID)
	if !ok {
		return d.c.th.Dim.Render("unknown: the id is not a ULID")
	}
	return at.UTC().Format("2006-01-02 15:04:05.000Z") + " · " + ago(d.serverNow().Sub(at)) + " ago" +
		d.c.th.Dim.Render(" (from its id)")
}

// position is where the job is in its queue's sets, as the row read found it.
func (d *detailView) position() string {
	th := d.c.th
	switch {
	case !d.done:
		return "…"
	case d.err != nil:
		return th.Dim.Render("unknown: the row was not read")
	case d.d.InPending:
		n := d.d.PendingRank
		return fmt.Sprintf("%s of %s in pending", ordinal(n+1), commas(max(d.q.Pending, n+1))) +
			th.Dim.Render(fmt.Sprintf(" · %s ahead of it", commas(n)))
	case d.d.InActive:
		return "in active (claimed by a worker), not pending"
	}
	return th.Warn.Render("in neither pending nor active now") + th.Dim.Render(" (acked, drained, or scheduled)")
}

// ordinal words n: 1st, 2nd, 3rd, 11th, 1,234th.
func ordinal(n int64) string {
	suf := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suf = "st"
	case n%10 == 2:
		suf = "nd"
	case n%10 == 3:
		suf = "rd"
	}
	return commas(n) + suf
}

// commas writes n with thousands separators.
func commas(n int64) string { return model.Commas(n) }

// fieldsLine counts the row's other fields, which the body lists.
func (d *detailView) fieldsLine() string {
	switch {
	case !d.done:
		return "…"
	case !d.d.Exists:
		return d.c.th.Dim.Render("none: no row read")
	}
	if d.d.Others == 0 {
		return d.c.th.Dim.Render("none besides state, attempts and payload")
	}
	return fmt.Sprintf("%d more, listed below", d.d.Others)
}

// fieldLines lists the row's other fields, a line each: the name, the
// value through the gate and cut to the width; a value or a name the
// server cut says its whole size.
func (d *detailView) fieldLines(w int) []string {
	th := d.c.th
	if len(d.d.Fields) == 0 {
		return nil
	}
	nameW := 0
	for _, f := range d.d.Fields {
		nameW = max(nameW, min(24, ansi.StringWidth(textgate.Text(f.Name))))
	}
	out := []string{th.Header.Render("fields")}
	for _, f := range d.d.Fields {
		name := textgate.Bounded(f.Name, 24)
		if f.NameLen > len(f.Name) {
			name += th.Warn.Render(fmt.Sprintf(" (name of %s)", textgate.Size(f.NameLen)))
		}
		val := ""
		if f.ValueLen > len(f.Value) {
			val = th.Warn.Render("(" + textgate.Size(f.ValueLen) + ") ")
		}
		val += textgate.Text(f.Value)
		out = append(out, fit(" "+fit(name, nameW)+"  "+val, w))
	}
	if more := d.d.Others - len(d.d.Fields); more > 0 {
		out = append(out, th.Dim.Render(fmt.Sprintf(" … %d more fields, not read (the detail reads %d)", more, len(d.d.Fields))))
	}
	return append(out, "", th.Header.Render("payload"))
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
				th.Dim.Render(" (not an integer: no fence, so no requeue from here)")
		}
		n, _ := strconv.ParseInt(d.d.Attempts, 10, 64)
		return claims(n) + th.Dim.Render(" (the fence)")
	}
	if !d.job.AttemptsOK {
		why := d.job.AttemptsWhy
		if d.job.AttemptsRaw != "" {
			why += ": " + textgate.Bounded(d.job.AttemptsRaw, 40)
		}
		return th.Invalid.Render("unreadable: " + why)
	}
	return claims(d.job.Attempts)
}

// claims words the attempts counter: each claim adds one, so more than one
// means the job was claimed again after a lease ran out or a worker failed.
func claims(n int64) string {
	switch {
	case n <= 0:
		return fmt.Sprintf("%d · never claimed", n)
	case n == 1:
		return "1 · claimed once"
	}
	return fmt.Sprintf("%d · claimed %d times (re-claimed after a lost lease)", n, n)
}

func (d *detailView) lease() string {
	deadline, off, active := d.job.Score, d.job.ScoreOff, d.active
	if d.done && d.err == nil { // the row read is newer than the pane
		deadline, off, active = d.d.ActiveScore, d.d.ActiveOff, d.d.InActive
	}
	switch {
	case !active:
		return d.c.th.Dim.Render("none: not claimed")
	case off > 0:
		return d.c.th.Warn.Render(model.DeadlineWords(off) + ": the server never counts it expired, so no requeue of expired jobs takes it")
	case off < 0:
		return d.c.th.Warn.Render(model.DeadlineWords(off) + ": expired since ever (the server counts it expired)")
	}
	now := d.serverNow()
	dl := time.UnixMilli(deadline)
	at := dl.UTC().Format("15:04:05.000Z")
	if dl.After(now) {
		return fmt.Sprintf("lease ends in %s (%s)", ago(dl.Sub(now)), at)
	}
	return d.c.th.Warn.Render(fmt.Sprintf("stuck for %s · the lease ran out at %s", ago(now.Sub(dl)), at))
}

func (d *detailView) size() string {
	switch {
	case !d.done:
		return "…"
	case !d.d.Exists:
		return d.c.th.Dim.Render("none: no row read")
	}
	s := textgate.Size(d.d.PayloadLen)
	if d.d.PayloadLen > len(d.d.Payload) {
		s += d.c.th.Warn.Render(fmt.Sprintf(" (showing the first %s)", textgate.Size(len(d.d.Payload))))
	}
	return s
}

// prettyJSON indents a payload that is whole JSON (an object or an
// array), two spaces a level, for reading; anything else, or a preview
// cut short, is shown as it is. Either way the gate comes after.
func prettyJSON(p string) string {
	t := strings.TrimSpace(p)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return p
	}
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(t), "", "  "); err != nil {
		return p
	}
	return b.String()
}
