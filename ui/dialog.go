package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

type dialogKeys struct {
	Yes, No, Confirm, Cancel key.Binding
}

func newDialogKeys() dialogKeys {
	return dialogKeys{
		Yes:     bind([]string{"y", "Y", "enter"}, "y/enter", "confirm"),
		No:      bind([]string{"n", "N", "esc"}, "n/esc", "cancel"),
		Confirm: bind([]string{"enter"}, "enter", "drain, with the name typed"),
		Cancel:  bind([]string{"esc"}, "esc", "cancel, or stop between batches"),
	}
}

func (k dialogKeys) ShortHelp() []key.Binding { return []key.Binding{k.Yes, k.No} }
func (k dialogKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Yes, k.No}, {k.Confirm, k.Cancel}}
}

// actionState is an open confirmation, or an action running in batches.
type actionState struct {
	kind    actionKind
	queue   string
	job     model.Job
	expired time.Duration // how long ago the job's lease ran out
	total   int64         // expired or pending at the last poll
	preview []string      // drain: the first pending ids
	typed   textinput.Model
	wrong   bool // drain: the typed name did not match
	running bool
	cancel  bool
	done    int
	left    int
	started time.Time
}

// dialog is the confirmation of r, R or D, then its progress. Its keys are
// its own (y/n, or the typed name for D); seq names the answers it takes.
type dialog struct {
	c    *common
	keys dialogKeys
	a    actionState
	acts model.Actions
	seq  int
	w, h int
}

func newDialog(c *common, acts model.Actions, seq int, a actionState) (*dialog, tea.Cmd) {
	d := &dialog{c: c, keys: newDialogKeys(), a: a, acts: acts, seq: seq}
	if a.kind != actDrain {
		d.keys.Confirm.SetEnabled(false)
		return d, nil
	}
	d.keys.Yes.SetEnabled(false)
	d.keys.No.SetEnabled(false)
	d.a.typed = newInput()
	d.a.typed.Prompt, d.a.typed.CharLimit = "type the queue's name: ", 200
	return d, d.a.typed.Focus()
}

func (d *dialog) SetSize(w, h int)          { d.w, d.h = w, h }
func (d *dialog) ShortHelp() []key.Binding  { return d.keys.ShortHelp() }
func (d *dialog) FullHelp() [][]key.Binding { return d.keys.FullHelp() }

// follow keeps an open R or D confirmation's count and preview those of
// the latest poll, so what the dialog says matches the panes behind it.
func (d *dialog) follow(s *model.Snapshot) {
	a := &d.a
	q := queueOf(s, a.queue)
	if a.running || a.kind == actRequeue || q == nil || q.Stale || q.Err != "" {
		return
	}
	if a.kind == actRequeueAll {
		a.total = q.Expired
		return
	}
	a.total = q.Pending
	if q.Detail {
		a.preview = a.preview[:0]
		for _, j := range q.PendingJobs()[:min(5, len(q.PendingJobs()))] {
			a.preview = append(a.preview, j.ID)
		}
	}
}

func (d *dialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case actionMsg:
		if msg.seq == d.seq {
			return d.answered(msg)
		}
	case tea.KeyMsg:
		return d.key(msg)
	}
	return nil
}

func (d *dialog) key(msg tea.KeyMsg) tea.Cmd {
	a := &d.a
	switch {
	case a.running:
		if key.Matches(msg, d.keys.Cancel) {
			a.cancel = true // honoured between batches
		}
		return nil
	case key.Matches(msg, d.keys.Cancel), key.Matches(msg, d.keys.No):
		return d.c.emit(actionDoneMsg{text: "cancelled: nothing was changed"})
	case key.Matches(msg, d.keys.Confirm):
		if a.typed.Value() != a.queue {
			a.wrong = true
			return nil
		}
		return d.run()
	case key.Matches(msg, d.keys.Yes):
		return d.run()
	case a.kind == actDrain:
		var cmd tea.Cmd
		a.typed, cmd = a.typed.Update(msg)
		a.wrong = false
		return cmd
	}
	return nil
}

// run sends the first script of the confirmed action.
func (d *dialog) run() tea.Cmd {
	d.a.running, d.a.started = true, d.c.now()
	d.keys.Yes.SetEnabled(false)
	d.keys.No.SetEnabled(false)
	d.keys.Confirm.SetEnabled(false)
	return stepCmd(d.acts, d.seq, d.a)
}

// answered takes the server's answer: the next batch, or the end.
func (d *dialog) answered(msg actionMsg) tea.Cmd {
	a := &d.a
	a.done += msg.n
	a.left = msg.left
	more := msg.err == nil && !a.cancel &&
		((msg.kind == actRequeueAll && msg.n == expiredBatch) || (msg.kind == actDrain && msg.left > 0 && msg.n > 0))
	if more {
		return stepCmd(d.acts, d.seq, d.a)
	}
	return d.c.emit(outcome(a, msg))
}

func (d *dialog) View() string {
	a := &d.a
	th := d.c.th
	w := min(d.w-4, 76)
	style := th.Dialog
	var lines []string
	switch a.kind {
	case actRequeue:
		lines = d.requeueLines()
	case actRequeueAll:
		lines = []string{
			th.Title.Render("Requeue every expired job?"), "",
			fmt.Sprintf("queue     %s", textgate.Bounded(a.queue, 50)),
			fmt.Sprintf("expired   %d at the last poll (the server decides at run time)", a.total),
			"", th.Dim.Render(fmt.Sprintf("runs in batches of %d · y or enter: requeue · n or esc: cancel", expiredBatch)),
		}
	case actDrain:
		style = th.Danger
		lines = d.drainLines()
	}
	if a.running {
		lines = append(lines, d.progressLines(w)...)
	}
	for i := range lines {
		lines[i] = fit(lines[i], w-4)
	}
	return style.Width(w - 2).Render(strings.Join(lines, "\n"))
}

func (d *dialog) requeueLines() []string {
	a, th := &d.a, d.c.th
	lines := []string{
		th.Title.Render("Requeue this job?"), "",
		fmt.Sprintf("queue     %s", textgate.Bounded(a.queue, 50)),
		fmt.Sprintf("job       %s", textgate.Text(a.job.ID)),
		fmt.Sprintf("attempts  %d  (the fence: refused if a worker claimed it since)", a.job.Attempts),
	}
	if a.expired >= 0 {
		lines = append(lines, th.Warn.Render(fmt.Sprintf("lease     ran out %s ago", ago(a.expired))))
	} else {
		lines = append(lines, th.Warn.Render(fmt.Sprintf("lease     still %s left: its worker may be alive", ago(-a.expired))))
	}
	return append(lines, "", th.Dim.Render("y or enter: requeue · n or esc: cancel"))
}

func (d *dialog) drainLines() []string {
	a, th := &d.a, d.c.th
	lines := []string{
		th.Bad.Render("Drain this queue?"), "",
		fmt.Sprintf("queue     %s", textgate.Bounded(a.queue, 50)),
		fmt.Sprintf("removes   its pending jobs and their rows: %d at the last poll", a.total),
		"keeps     its active jobs, untouched",
	}
	for i, id := range a.preview {
		label := "first     "
		if i > 0 {
			label = "          "
		}
		lines = append(lines, label+textgate.Text(id))
	}
	lines = append(lines, "", a.typed.View())
	if a.wrong {
		lines = append(lines, th.Bad.Render("that is not the queue's name: nothing was drained"))
	}
	return append(lines, th.Dim.Render("enter: drain · esc: cancel"))
}

func (d *dialog) progressLines(w int) []string {
	a, th := &d.a, d.c.th
	lines := []string{""}
	if a.kind == actDrain {
		total := a.done + a.left
		frac := 0.0
		if total > 0 {
			frac = float64(a.done) / float64(total)
		}
		bar := progress.New(progress.WithWidth(w-12), progress.WithoutPercentage(), progress.WithSolidFill(string(th.Expired)))
		lines = append(lines, bar.ViewAs(frac)+fmt.Sprintf(" %d/%d", a.done, total))
	} else {
		lines = append(lines, fmt.Sprintf("working… %d so far (%s)", a.done, ago(d.c.now().Sub(a.started))))
	}
	if a.cancel {
		return append(lines, th.Warn.Render("cancelling after this batch…"))
	}
	return append(lines, th.Dim.Render("esc: cancel between batches"))
}
