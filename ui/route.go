package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

// overlaySlot is one kind of overlay, at most one open: how to read it
// and close it, and whether it is a box over the panes or a screen in
// their place.
type overlaySlot struct {
	open  func() Component // nil when closed
	close func()
	box   bool
}

// overlays are the overlays, the top one first: it takes every key, esc
// closes it, and it is drawn last. The one order, for keys, closing and
// drawing.
func (m *Model) overlays() []overlaySlot {
	return []overlaySlot{
		{func() Component { return nilComponent(m.dialog) }, func() { m.dialog = nil }, true},
		{func() Component { return nilComponent(m.find) }, func() { m.find = nil }, true},
		{func() Component { return nilComponent(m.detail) }, func() { m.detail = nil }, false},
		{func() Component { return nilComponent(m.helpView) }, func() { m.helpView = nil }, false},
	}
}

// nilComponent is c as a Component, nil when the pointer is nil (a nil
// pointer in an interface is not a nil interface).
func nilComponent[T Component](c T) Component {
	var none T
	if any(c) == any(none) {
		return nil
	}
	return c
}

// overlay is the open overlay that takes every key; nil when none is open.
func (m *Model) overlay() Component {
	for _, o := range m.overlays() {
		if c := o.open(); c != nil {
			return c
		}
	}
	return nil
}

// key routes a key: ctrl+c always quits; then the open overlay, the filter
// being typed, the focused pane when its key map holds the key, and last
// the action table (the root's keys, and the reason of a key that is off).
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.ForceQuit) {
		return tea.Quit
	}
	if o := m.overlay(); o != nil {
		return o.Update(msg)
	}
	if m.queues.capturing() {
		cmd := m.queues.Update(msg)
		return tea.Batch(cmd, m.selectionChanged())
	}
	if p := m.jobPane(); p != nil && p.capturing() {
		return p.Update(msg)
	}
	if f := m.focused(); matches(msg, f) {
		cmd := f.Update(msg)
		return tea.Batch(cmd, m.selectionChanged())
	}
	cmd, _ := m.act(msg)
	return cmd
}

func (m *Model) openHelp() {
	m.flash = ""
	why := ""
	if w := m.writesOff(); w != "" {
		why = m.writingKeys() + " are off because " + w
	}
	m.helpView = newHelpScreen(m.c, m.help, m.keyGroups(), why)
	m.helpView.SetSize(m.width, m.height-2)
}

// back is esc: one thing at a time, the message first, then the filter.
func (m *Model) back() tea.Cmd {
	if m.flash != "" {
		m.flash = ""
	} else if p := m.jobPane(); p != nil && p.filter.clear() {
		p.cur = 0
	} else if m.queues.clearFilter() {
		return m.selectionChanged()
	}
	return nil
}

// startFilter is /: on a job pane its jobs, by id; else the queue list.
func (m *Model) startFilter() tea.Cmd {
	if p := m.jobPane(); p != nil {
		return p.startFilter()
	}
	m.setFocus(paneQueues)
	return m.queues.startFilter()
}

func (m *Model) toggleHold() tea.Cmd {
	if m.queues.toggleHold() {
		return m.say("the rows hold their order: new queues go last (o follows the sort again)", false)
	}
	return m.say("the rows follow the sort again", false)
}

func (m *Model) nextHeatMode() {
	m.heat.mode = (m.heat.mode + 1) % heatModes
	m.say("the heatmap's brightness is "+heatModeNames[m.heat.mode]+" per cell (m: next)", false)
}

func (m *Model) togglePlan() {
	m.nodes.planOn = !m.nodes.planOn
	m.nodes.shares = m.nodes.shares || m.nodes.planOn
	if m.nodes.planOn {
		m.say("a plan to even the "+m.heat.planBy()+" (the heatmap's mode): previewed, nothing is sent; emqtop rebalance prints its commands", false)
	}
	m.nodesOffScreen()
}

func (m *Model) toggleSpread() {
	m.nodes.shares = !m.nodes.shares
	m.nodes.planOn = m.nodes.planOn && m.nodes.shares
	m.nodesOffScreen()
}

func (m *Model) nodesOffScreen() {
	if !m.isDrawn(m.nodes) {
		m.say("the nodes pane is off screen: tab to it, or widen the terminal (120 columns, 30 rows)", false)
	}
}

func (m *Model) openFind() {
	m.flash = ""
	m.find = newFindView(m.c, m.src.(Finder))
	m.find.SetSize(min(m.width, 96), 8)
}

// setInterval applies a new interval at once (the tick armed with the old
// one is dropped) and says so.
func (m *Model) setInterval(d time.Duration) tea.Cmd {
	m.interval = d
	m.say(fmt.Sprintf("polling every %s (+ more often, - less often: %s)", every(m.interval), ladderWords()), false)
	if m.paused || m.inFlight {
		return nil // the next poll's answer arms the new interval
	}
	m.gen++
	return m.next()
}

// setWindow applies a new span to the lease timeline, says so, and reads
// the selected queue's histogram for it at once, paused or not.
func (m *Model) setWindow(d time.Duration, why string) tea.Cmd {
	m.window = max(5*time.Second, min(d, 24*time.Hour))
	m.src.SetWindow(m.window)
	if why == "" {
		why = "< narrower, > wider"
	}
	if m.opt.Shared {
		why += "; the server reads the widest span its sessions ask"
	}
	m.say(fmt.Sprintf("lease timeline now±%s (%s)", ago(m.window), why), false)
	return m.pollOnce()
}

func (m *Model) setFocus(p pane) {
	m.focus = p
	m.applyFocus()
	m.applyModes()
}

// selectionMoved makes the list's selection the one every pane shows.
func (m *Model) selectionMoved() {
	m.c.sel = m.queues.selected()
	m.pending.follow(m.c.sel)
	m.active.follow(m.c.sel)
}

// selectionChanged follows a move of the list's selection: the panes show
// the new queue, the source reads its jobs, and a quick poll is armed for
// when the selection settles.
func (m *Model) selectionChanged() tea.Cmd {
	m.selectionMoved()
	q := m.c.sel
	if q == nil || q.Name == m.told && q.Detail {
		return nil
	}
	m.told = q.Name
	m.src.SetDetail(q.Name)
	m.selGen++
	gen := m.selGen
	return m.c.tick(150*time.Millisecond, func(time.Time) tea.Msg { return selMsg{gen: gen} })
}

// component handles what components and async work send the root.
func (m *Model) component(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case focusMsg:
		m.setFocus(msg.p)
	case selectQueueMsg:
		m.queues.selectName(msg.name)
		m.setFocus(paneQueues)
		return m.selectionChanged()
	case flashMsg:
		m.flash, m.flashBad = msg.text, msg.bad
	case closeMsg:
		m.closeOverlay()
	case openJobMsg:
		return m.openJob(msg)
	case requeueMsg:
		return m.startRequeue(msg.q, msg.job)
	case jobMsg:
		if m.detail != nil {
			return m.detail.Update(msg)
		}
	case actionMsg:
		if m.dialog != nil {
			return m.dialog.Update(msg)
		}
	case findStartedMsg, findStepMsg, findNextMsg:
		if m.find != nil {
			return m.find.Update(msg)
		}
	case foundMsg:
		return m.found(msg)
	case copyMsg:
		return m.copyText(msg.text, msg.what)
	case actionDoneMsg:
		m.dialog = nil
		m.applyFocus()
		m.flash, m.flashBad = msg.text, msg.bad
		if msg.noPerm {
			m.noPerm = true
			m.applyModes()
		}
		return m.pollNow() // show the result
	}
	return nil
}

// closeOverlay closes the top overlay.
func (m *Model) closeOverlay() {
	for _, o := range m.overlays() {
		if o.open() != nil {
			o.close()
			return
		}
	}
}

// openJob opens a job's detail and reads its row; the answer names the job.
func (m *Model) openJob(msg openJobMsg) tea.Cmd {
	m.flash = "" // the help line is the detail's now
	m.detail = newDetail(m.c, msg.q, msg.job, msg.active, m.writesOff() == "")
	m.detail.found = msg.found
	m.detail.SetSize(m.width, m.height-2)
	if !msg.job.Valid {
		return nil
	}
	src, name, id := m.src, msg.q.Name, msg.job.ID
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d, err := src.Job(ctx, name, id)
		return jobMsg{queue: name, id: id, d: d, err: err}
	}
}

// openDialog opens the confirmation of an action.
func (m *Model) openDialog(a actionState) tea.Cmd {
	if w := m.writesOff(); w != "" { // a dialog's r, or a requeue from the detail
		return m.say("read-only: "+m.writingKeys()+" are off because "+w, true)
	}
	m.actSeq++
	d, cmd := newDialog(m.c, m.opt.Actions, m.actSeq, a)
	d.SetSize(m.width, m.height)
	m.dialog = d
	m.flash = "" // the footer is the dialog's now: no word left from before it
	m.applyFocus()
	return cmd
}

// startRequeue opens the confirmation of r for job j of q, with the
// attempts the operator saw as the fence.
func (m *Model) startRequeue(q model.Queue, j model.Job) tea.Cmd {
	if !j.Valid || !j.AttemptsOK {
		return m.say("this job cannot be requeued: its id or its attempts counter is unreadable", true)
	}
	now := time.UnixMilli(q.ServerTimeMs)
	var expired time.Duration
	if j.ScoreOff == 0 { // a deadline of ±inf has no "expired for"
		expired = now.Sub(time.UnixMilli(j.Score))
	}
	return m.openDialog(actionState{kind: actRequeue, queue: q.Name, job: j, expired: expired})
}

// startRequeueAll opens the confirmation of R for the selected queue.
func (m *Model) startRequeueAll() tea.Cmd {
	switch q := m.c.sel; {
	case q == nil:
		return m.say("no queue selected", true)
	case q.Expired == 0:
		return m.say(fmt.Sprintf("%s has no expired jobs", q.Name), false)
	default:
		return m.openDialog(actionState{kind: actRequeueAll, queue: q.Name, total: q.Expired})
	}
}

// startDrain opens the confirmation of D for the selected queue.
func (m *Model) startDrain() tea.Cmd {
	q := m.c.sel
	switch {
	case q == nil:
		return m.say("no queue selected", true)
	case q.Pending == 0:
		return m.say(fmt.Sprintf("%s has nothing pending", q.Name), false)
	}
	a := actionState{kind: actDrain, queue: q.Name, total: q.Pending}
	for _, j := range q.PendingJobs()[:min(5, len(q.PendingJobs()))] {
		a.preview = append(a.preview, j.ID)
	}
	return m.openDialog(a)
}

// say puts text on the help line.
func (m *Model) say(text string, bad bool) tea.Cmd {
	m.flash, m.flashBad = text, bad
	return nil
}

// jobPane is the focused job pane, nil when the focus is elsewhere.
func (m *Model) jobPane() *jobsPane {
	switch m.focus {
	case panePending:
		return m.pending
	case paneActive:
		return m.active
	}
	return nil
}
