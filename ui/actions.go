package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

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

// actionMsg is the server's answer to one script of an action; seq names
// the dialog it answers.
type actionMsg struct {
	seq     int
	kind    actionKind
	queue   string
	id      string
	fence   int64
	n, left int
	err     error
}

// actionDoneMsg: the action ended; the root shows its outcome and polls.
type actionDoneMsg struct {
	text string
	bad  bool
	// noPerm: the server refuses writes for this user, so the session
	// turns read-only
	noPerm bool
}

// stepCmd is one script of a running action, as a command; it captures
// values only.
func stepCmd(acts model.Actions, seq int, a actionState) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		msg := actionMsg{seq: seq, kind: a.kind, queue: a.queue, id: a.job.ID, fence: a.job.Attempts}
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

// outcome words how an action ended. Nothing claims success before the
// server said so.
func outcome(a *actionState, msg actionMsg) actionDoneMsg {
	var refused *model.Refused
	switch {
	case errors.Is(msg.err, model.ErrNoPerm):
		return actionDoneMsg{text: "the server refuses writes for this user (NOPERM): the session is read-only now", bad: true, noPerm: true}
	case errors.As(msg.err, &refused):
		return actionDoneMsg{text: "refused: " + refused.Reason, bad: true}
	case errors.Is(msg.err, model.ErrUnknownOutcome):
		return actionDoneMsg{text: fmt.Sprintf("no answer in time after %d done: the last batch may have been applied; the next poll shows what the server holds", a.done), bad: true}
	case msg.err != nil:
		return actionDoneMsg{text: "failed: " + firstLine(msg.err.Error()), bad: true}
	case msg.kind == actRequeue:
		return actionDoneMsg{text: fmt.Sprintf("requeued %s of %s (attempts %d)", msg.id, msg.queue, msg.fence)}
	case msg.kind == actRequeueAll && a.cancel:
		return actionDoneMsg{text: fmt.Sprintf("cancelled after requeueing %d expired jobs of %s", a.done, msg.queue)}
	case msg.kind == actRequeueAll:
		return actionDoneMsg{text: fmt.Sprintf("requeued %d expired jobs of %s", a.done, msg.queue)}
	}
	verb := "drained"
	if a.cancel {
		verb = "cancelled after draining"
	}
	return actionDoneMsg{text: fmt.Sprintf("%s %d pending jobs of %s; %d left; active jobs untouched", verb, a.done, msg.queue, a.left)}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// queueOf finds a queue of s by name.
func queueOf(s *model.Snapshot, name string) *model.Queue {
	if s == nil {
		return nil
	}
	return s.Queue(name)
}
