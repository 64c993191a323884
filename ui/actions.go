package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

// Actions are the writes an operator can make. The implementation (the
// echomq scripts, the audit log and the read-only guard) lives below the UI.
type Actions interface {
	// Requeue moves an active job back to pending if its attempts still
	// equal the fence the operator saw.
	Requeue(ctx context.Context, queue, id string, attempts int64) error
	// RequeueExpired requeues up to limit jobs whose lease ran out.
	RequeueExpired(ctx context.Context, queue string, limit int) (moved int, err error)
	// DrainStep removes up to batch pending jobs; left is what remains.
	DrainStep(ctx context.Context, queue string, batch int) (removed, left int, err error)
}

// Refused is an action the server refused for a reason the operator should
// read as such (fenced, no longer active, read-only), not as a failure.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return r.Reason }

// ErrNoPerm marks an error as the server refusing writes for this user; the
// session then turns read-only.
var ErrNoPerm = errors.New("the server refuses writes for this user")

var errInvalidID = errors.New("this member of the set is not a valid job id: it is shown, never used to build a key")

type actionKind int

const (
	actRequeue actionKind = iota
	actRequeueAll
	actDrain
)

// expiredBatch and drainBatch size one script call of R and D.
const (
	expiredBatch = 100
	drainBatch   = 1000
)

// actionState is an open confirmation, or an action running in batches.
type actionState struct {
	kind     actionKind
	queue    string
	job      model.Job
	expired  time.Duration // how long ago the job's lease ran out
	total    int64         // expired or pending when confirmed
	preview  []string      // drain: the first pending ids
	typed    textinput.Model
	wrong    bool // drain: the typed name did not match
	running  bool
	cancel   bool
	done     int
	left     int
	started  time.Time
	lastTick time.Time
}

// follow keeps an open R or D confirmation's count and preview those of
// the latest poll, so what the dialog says matches the panes behind it.
func (a *actionState) follow(s *model.Snapshot) {
	if a == nil || a.running || a.kind == actRequeue {
		return
	}
	var q *model.Queue
	for i := range s.Queues {
		if s.Queues[i].Name == a.queue {
			q = &s.Queues[i]
			break
		}
	}
	if q == nil || q.Stale || q.Err != "" {
		return // nothing newer to say
	}
	if a.kind == actRequeueAll {
		a.total = q.Expired
		return
	}
	a.total = q.Pending
	if q.Detail {
		a.preview = a.preview[:0]
		for _, j := range q.PendingJobs[:min(5, len(q.PendingJobs))] {
			a.preview = append(a.preview, j.ID)
		}
	}
}

// actionMsg is the server's answer to one script of an action.
type actionMsg struct {
	kind    actionKind
	queue   string
	id      string
	fence   int64
	n, left int
	err     error
}

func (m *Model) actionsOn() bool { return m.opt.Actions != nil && !m.opt.ReadOnly }

// msgReadOnly answers an action key in a read-only session.
const msgReadOnly = "read-only: requeue and drain are off (--read-only, or the server refused writes)"

// requeueDialog opens the confirmation of r for job j of q, with the
// attempts the operator saw as the fence.
func (m *Model) requeueDialog(q *model.Queue, j model.Job) {
	if !j.Valid || !j.AttemptsOK {
		m.flash, m.flashBad = "this job cannot be requeued: its id or its attempts counter is unreadable", true
		return
	}
	now := time.UnixMilli(q.ServerTimeMs)
	m.act = &actionState{kind: actRequeue, queue: q.Name, job: j, expired: now.Sub(time.UnixMilli(j.Score))}
}

// startAction opens the confirmation of r, R or D.
func (m *Model) startAction(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if !m.actionsOn() {
		m.flash, m.flashBad = msgReadOnly, true
		return m, nil
	}
	q := m.selected()
	if q == nil {
		m.flash, m.flashBad = "no queue selected", true
		return m, nil
	}
	switch {
	case bound(msg, m.keys.Requeue):
		if m.focus != paneActive || m.actSel >= len(q.ActiveJobs) {
			m.flash, m.flashBad = "select an active job first: tab to the Active pane, move with ↑/↓, then r", true
			return m, nil
		}
		m.requeueDialog(q, q.ActiveJobs[m.actSel])
	case bound(msg, m.keys.RequeueAll):
		if q.Expired == 0 {
			m.flash, m.flashBad = fmt.Sprintf("%s has no expired jobs", q.Name), false
			return m, nil
		}
		m.act = &actionState{kind: actRequeueAll, queue: q.Name, total: q.Expired}
	case bound(msg, m.keys.Drain):
		if q.Pending == 0 {
			m.flash, m.flashBad = fmt.Sprintf("%s has nothing pending", q.Name), false
			return m, nil
		}
		a := &actionState{kind: actDrain, queue: q.Name, total: q.Pending}
		for _, j := range q.PendingJobs[:min(5, len(q.PendingJobs))] {
			a.preview = append(a.preview, j.ID)
		}
		a.typed = textinput.New()
		a.typed.Prompt = "type the queue's name: "
		a.typed.CharLimit = 200
		m.act = a
		return m, m.act.typed.Focus()
	}
	return m, nil
}

// actionKey handles keys while a confirmation is open or an action runs.
func (m *Model) actionKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	a := m.act
	back := key.Matches(msg, m.keys.Back)
	if a.running {
		if back {
			a.cancel = true // honoured between batches
		}
		return m, nil
	}
	if back || (a.kind != actDrain && (msg.String() == "n" || msg.String() == "N")) {
		m.act = nil
		m.flash, m.flashBad = "cancelled: nothing was changed", false
		return m, nil
	}
	if a.kind == actDrain {
		if key.Matches(msg, m.keys.Enter) {
			if a.typed.Value() != a.queue {
				a.wrong = true
				return m, nil
			}
			return m.run()
		}
		var cmd tea.Cmd
		a.typed, cmd = a.typed.Update(msg)
		a.wrong = false
		return m, cmd
	}
	if msg.String() == "y" || msg.String() == "Y" || key.Matches(msg, m.keys.Enter) {
		return m.run()
	}
	return m, nil
}

// run sends the first script of the confirmed action.
func (m *Model) run() (tea.Model, tea.Cmd) {
	a := m.act
	a.running, a.started = true, time.Now()
	return m, m.step()
}

// step is one script of the running action, as a command.
func (m *Model) step() tea.Cmd {
	a, acts := *m.act, m.opt.Actions
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		msg := actionMsg{kind: a.kind, queue: a.queue, id: a.job.ID, fence: a.job.Attempts}
		switch a.kind {
		case actRequeue:
			msg.err = acts.Requeue(ctx, a.queue, a.job.ID, a.job.Attempts)
		case actRequeueAll:
			msg.n, msg.err = acts.RequeueExpired(ctx, a.queue, expiredBatch)
		case actDrain:
			msg.n, msg.left, msg.err = acts.DrainStep(ctx, a.queue, drainBatch)
		}
		return msg
	}
}

// actionDone takes the server's answer: the next batch, or the outcome in
// words. Nothing claims success before the server said so.
func (m *Model) actionDone(msg actionMsg) (tea.Model, tea.Cmd) {
	a := m.act
	if a == nil {
		return m, nil
	}
	a.done += msg.n
	a.left = msg.left
	more := msg.err == nil && !a.cancel &&
		((msg.kind == actRequeueAll && msg.n == expiredBatch) || (msg.kind == actDrain && msg.left > 0 && msg.n > 0))
	if more {
		return m, m.step()
	}
	m.act = nil
	var refused *Refused
	switch {
	case errors.Is(msg.err, ErrNoPerm):
		m.opt.ReadOnly = true
		m.setEnabled()
		m.flash, m.flashBad = "the server refuses writes for this user (NOPERM): the session is read-only now", true
	case errors.As(msg.err, &refused):
		m.flash, m.flashBad = "refused: "+refused.Reason, true
	case msg.err != nil:
		m.flash, m.flashBad = "failed: "+firstLine(msg.err.Error()), true
	case msg.kind == actRequeue:
		m.flash, m.flashBad = fmt.Sprintf("requeued %s of %s (attempts %d)", msg.id, msg.queue, msg.fence), false
	case msg.kind == actRequeueAll:
		m.flash, m.flashBad = fmt.Sprintf("requeued %d expired jobs of %s", a.done, msg.queue), false
	default:
		verb := "drained"
		if a.cancel {
			verb = "cancelled after draining"
		}
		m.flash, m.flashBad = fmt.Sprintf("%s %d pending jobs of %s; %d left; active jobs untouched", verb, a.done, msg.queue, a.left), false
	}
	if a.cancel && msg.kind == actRequeueAll {
		m.flash = fmt.Sprintf("cancelled after requeueing %d expired jobs of %s", a.done, msg.queue)
	}
	// show the result: poll now
	if !m.inFlight && !m.paused {
		m.gen++
		return m, m.pollCmd()
	}
	return m, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
