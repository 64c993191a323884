package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/viewport"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

func newDetail(q *model.Queue, j model.Job, active bool, w, h int) *detailView {
	d := &detailView{q: *q, job: j, active: active, vp: viewport.New(max(10, w-4), max(3, h-14))}
	d.vp.SetContent("reading the job row…")
	return d
}

// requeueable: the job is active and its id and attempts are readable, so
// r can fence it.
func (d *detailView) requeueable() bool {
	return d.active && d.job.Valid && d.job.AttemptsOK
}

func (d *detailView) resize(w, h int) {
	d.vp.Width, d.vp.Height = max(10, w-4), max(3, h-14)
}

// loaded takes the job row; the payload is sanitised, wrapped to the view
// and bounded (the server sent at most a preview).
func (d *detailView) loaded(jd model.JobDetail, err error, th *theme.Theme) {
	d.d, d.err, d.done = jd, err, true
	switch {
	case err != nil:
		d.vp.SetContent(th.Bad.Render(safe.Text(err.Error())))
	case !jd.Exists:
		d.vp.SetContent(th.Warn.Render("the job row does not exist (acked, drained, or never written)"))
	default:
		body := safe.Lines(jd.Payload)
		if jd.PayloadLen > len(jd.Payload) {
			body += "\n" + th.Warn.Render(fmt.Sprintf("… preview of the first %s of %s", safe.Size(len(jd.Payload)), safe.Size(jd.PayloadLen)))
		}
		d.vp.SetContent(ansi.Wrap(body, d.vp.Width, ""))
	}
}

func (d *detailView) view(th *theme.Theme, w, h int) string {
	q, j := d.q, d.job
	key := "(not built: the id fails the gate)"
	if k, err := keyspace.JobKey(q.Name, j.ID); err == nil {
		key = safe.Text(k)
	}
	now := time.UnixMilli(q.ServerTimeMs)
	lease := "–"
	state := "pending"
	if d.active {
		state = "active"
		dl := time.UnixMilli(j.Score)
		if dl.After(now) {
			lease = fmt.Sprintf("%s left (deadline %s)", ago(dl.Sub(now)), dl.UTC().Format("15:04:05.000Z"))
		} else {
			lease = th.Warn.Render(fmt.Sprintf("expired %s ago (deadline %s)", ago(now.Sub(dl)), dl.UTC().Format("15:04:05.000Z")))
		}
	}
	attempts := fmt.Sprint(j.Attempts)
	if !j.AttemptsOK {
		attempts = th.Invalid.Render("unreadable: " + safe.Bounded(j.AttemptsRaw, 40))
	}
	if d.done && d.d.Exists {
		state = safe.Bounded(d.d.State, 40) + th.Dim.Render(" (row)")
		attempts = safe.Bounded(d.d.Attempts, 40) + th.Dim.Render(" (row, the fence)")
		if _, err := strconv.ParseInt(d.d.Attempts, 10, 64); err != nil {
			attempts = th.Invalid.Render("unreadable: "+safe.Bounded(d.d.Attempts, 40)) +
				th.Dim.Render(" (row: not an integer, so no fence: it cannot be requeued from here)")
		}
	}
	keys, _ := keyspace.KeysOf(q.Name)
	size := "…"
	if d.done && d.d.Exists {
		size = safe.Size(d.d.PayloadLen)
		if d.d.PayloadLen > len(d.d.Payload) {
			size += th.Warn.Render(fmt.Sprintf(" (showing the first %s)", safe.Size(len(d.d.Payload))))
		}
	}
	row := func(k, v string) string { return th.Header.Render(fmt.Sprintf(" %-9s", k)) + " " + v }
	lines := []string{
		row("id", safe.Text(j.ID)),
		row("queue", safe.Text(q.Name)+th.Dim.Render(fmt.Sprintf(" · slot %d · node %s", q.Slot, safe.Text(q.Node)))),
		row("keys", safe.Text(keys.Pending+", "+keys.Active)),
		row("row", key),
		row("state", state),
		row("attempts", attempts),
		row("lease", lease),
		row("payload", size+th.Dim.Render(" · ↑↓ pgup pgdn scroll · esc back")),
		"",
	}
	lines = append(lines, strings.Split(d.vp.View(), "\n")...)
	return box(th.BorderFocus, "Job", lines, w, h)
}
