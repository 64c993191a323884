package ui

import (
	"context"
	"errors"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// pane is a focusable part of the screen.
type pane int

const (
	paneQueues pane = iota
	paneHeat
	panePending
	paneActive
	panes
)

var paneNames = [...]string{"queues", "heatmap", "pending", "active"}

// Options configure the dashboard.
type Options struct {
	Target      string // what it is connected to, for the status bar
	Demo        string // "embedded demo", "demo": always in the status bar; "" for a real server
	Interval    time.Duration
	Window      time.Duration
	PollTimeout time.Duration // bound on one whole poll [10s]
	ReadOnly    bool
	Actions     Actions // nil: the action keys stay disabled
	Now         func() time.Time
}

// Model is the root of the program.
type Model struct {
	opt  Options
	th   *theme.Theme
	keys KeyMap
	help help.Model
	src  Source

	width, height int

	snap     *model.Snapshot
	fold     *model.Fold
	prevSnap *model.Snapshot
	pollErr  error
	errs     int // consecutive failed polls, for the back-off

	gen      int // ticks of another generation are dropped
	inFlight bool
	paused   bool
	interval time.Duration
	window   time.Duration

	focus pane

	// the queue list
	view      []int
	sel       int // index into view
	selName   string
	offset    int
	sortKey   model.SortKey
	reverse   bool
	filter    textinput.Model
	filtering bool
	selGen    int // the selection's generation, for the quick detail poll

	heatCursor int // slot under the heatmap cursor
	pendSel    int
	actSel     int

	// overlays
	showHelp bool
	detail   *detailView
	act      *actionState
	flash    string // the last action's outcome, in words
	flashBad bool

	cache *frameCache // shared by the copies of the model
}

// frameCache keeps what a frame derives from a snapshot, so frames between
// polls redo nothing.
type frameCache struct {
	fold  *model.Fold
	n     int
	cells []model.HeatCell
}

// heatmap bins the fold into n cells, once per snapshot and size.
func (m *Model) heatmap(n int) []model.HeatCell {
	c := m.cache
	if c.fold != m.fold || c.n != n {
		c.fold, c.n, c.cells = m.fold, n, m.fold.Heatmap(n)
	}
	return c.cells
}

// messages
type (
	snapshotMsg struct {
		snap *model.Snapshot
		err  error
	}
	tickMsg  struct{ gen int }
	selMsg   struct{ gen int }
	clockMsg struct{}
	// jobMsg answers the read of one job row; it names the job, so an
	// answer for a job no longer on screen is dropped
	jobMsg struct {
		queue, id string
		d         model.JobDetail
		err       error
	}
)

// New builds the dashboard on a source and a theme.
func New(src Source, th *theme.Theme, opt Options) *Model {
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	if opt.Window <= 0 {
		opt.Window = time.Minute
	}
	if opt.PollTimeout <= 0 {
		opt.PollTimeout = 10 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	m := Model{opt: opt, th: th, keys: DefaultKeyMap(), src: src, interval: opt.Interval, window: opt.Window, cache: &frameCache{}}
	m.help = help.New()
	m.help.Styles.ShortKey = th.HelpKey
	m.help.Styles.ShortDesc = th.HelpDesc
	m.help.Styles.FullKey = th.HelpKey
	m.help.Styles.FullDesc = th.HelpDesc
	m.help.Styles.ShortSeparator = th.Dim
	m.help.Styles.FullSeparator = th.Dim
	m.help.Styles.Ellipsis = th.Dim
	m.filter = textinput.New()
	m.filter.Prompt = "/"
	m.filter.CharLimit = 200
	m.filter.Placeholder = "queue name"
	m.heatCursor = -1
	m.setEnabled()
	return &m
}

// Init starts the poll loop and the clock.
func (m *Model) Init() tea.Cmd {
	m.src.SetWindow(m.window)
	return tea.Batch(m.pollCmd(), clock())
}

func clock() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockMsg{} })
}

// pollCmd runs one poll; it captures values only.
func (m *Model) pollCmd() tea.Cmd {
	m.inFlight = true
	src, timeout := m.src, m.opt.PollTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s, err := src.Poll(ctx)
		return snapshotMsg{snap: s, err: err}
	}
}

// next arms the next poll: after the interval, or longer while polls fail.
func (m *Model) next() tea.Cmd {
	d := m.interval
	for i := 0; i < m.errs && d < 30*time.Second; i++ {
		d *= 2
	}
	gen := m.gen
	return tea.Tick(min(d, 30*time.Second), func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// setEnabled switches bindings on and off so the help is always true.
func (m *Model) setEnabled() {
	actions := m.opt.Actions != nil && !m.opt.ReadOnly
	m.keys.Requeue.SetEnabled(actions)
	m.keys.RequeueAll.SetEnabled(actions)
	m.keys.Drain.SetEnabled(actions)
	m.keys.Left.SetEnabled(m.focus == paneHeat)
	m.keys.Right.SetEnabled(m.focus == paneHeat)
}

// Update is the root: messages of the loop here, keys to the overlay or the
// focused pane.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		m.keepInSight()
		if m.detail != nil {
			m.detail.resize(m.width, m.height)
		}
		return m, nil
	case snapshotMsg:
		m.inFlight = false
		if msg.err == nil && msg.snap == nil {
			msg.err = errors.New("the source returned no snapshot")
		}
		if msg.err != nil {
			m.pollErr = msg.err
			m.errs++
		} else {
			m.pollErr, m.errs = nil, 0
			m.fold = model.NewFold(msg.snap)
			m.prevSnap, m.snap = m.snap, msg.snap
			m.refreshView()
			m.act.follow(m.snap)
		}
		if m.paused {
			return m, nil
		}
		return m, m.next()
	case tickMsg:
		if msg.gen != m.gen || m.paused || m.inFlight {
			return m, nil
		}
		return m, m.pollCmd()
	case selMsg:
		// the selection settled: read its detail now rather than at the
		// next tick (the tick of the old generation is dropped)
		if msg.gen != m.selGen || m.paused || m.inFlight {
			return m, nil
		}
		m.gen++
		return m, m.pollCmd()
	case clockMsg:
		return m, clock()
	case jobMsg:
		if d := m.detail; d != nil && d.q.Name == msg.queue && d.job.ID == msg.id {
			d.loaded(msg.d, msg.err, m.th)
		}
		return m, nil
	case actionMsg:
		return m.actionDone(msg)
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			return m.typedAhead(msg)
		}
		return m.key(msg)
	}
	return m, nil
}

// typedAhead takes keys that arrived in one read (typed fast, or over a
// slow SSH link: "/orders", "jjj") one at a time, as if typed slowly;
// Bubble Tea hands them over as one message of several runes, which no
// binding would match. A bracketed paste stays whole: it is text, never a
// string of commands.
func (m *Model) typedAhead(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	var cur tea.Model = m
	for _, r := range msg.Runes {
		var cmd tea.Cmd
		cur, cmd = cur.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return cur, tea.Batch(cmds...)
}

func (m *Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) {
		return m, tea.Quit
	}
	switch {
	case m.act != nil:
		return m.actionKey(msg)
	case m.detail != nil:
		if key.Matches(msg, k.Back) || key.Matches(msg, k.Enter) {
			m.detail = nil
			return m, nil
		}
		if key.Matches(msg, k.Quit) {
			return m, tea.Quit
		}
		// the job on screen, with the attempts seen when it was opened (r is
		// disabled, so matches nothing, when the session is read-only)
		if key.Matches(msg, k.Requeue) && m.detail.requeueable() {
			d := m.detail
			m.detail = nil
			m.requeueDialog(&d.q, d.job)
			return m, nil
		}
		var cmd tea.Cmd
		m.detail.vp, cmd = m.detail.vp.Update(msg)
		return m, cmd
	case m.showHelp:
		if key.Matches(msg, k.Quit) && !key.Matches(msg, k.Back) {
			return m, tea.Quit
		}
		m.showHelp = false
		return m, nil
	case m.filtering:
		return m.filterKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Back):
		// one thing at a time: the message first, then the filter
		if m.flash != "" {
			m.flash = ""
			return m, nil
		}
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.refreshView()
			return m, m.selectionChanged()
		}
	case key.Matches(msg, k.Next):
		m.focus = (m.focus + 1) % panes
		m.setEnabled()
	case key.Matches(msg, k.Prev):
		m.focus = (m.focus + panes - 1) % panes
		m.setEnabled()
	case key.Matches(msg, k.Filter):
		m.filtering, m.focus = true, paneQueues
		m.setEnabled()
		return m, m.filter.Focus()
	case key.Matches(msg, k.Sort):
		m.sortKey = m.sortKey.Next()
		m.refreshView()
	case key.Matches(msg, k.Reverse):
		m.reverse = !m.reverse
		m.refreshView()
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		if !m.paused && !m.inFlight {
			m.gen++
			return m, m.pollCmd()
		}
	case key.Matches(msg, k.Faster):
		m.setInterval(m.interval / 2)
	case key.Matches(msg, k.Slower):
		m.setInterval(m.interval * 2)
	case key.Matches(msg, k.Narrow):
		m.setWindow(m.window / 2)
	case key.Matches(msg, k.Widen):
		m.setWindow(m.window * 2)
	case key.Matches(msg, k.Requeue), key.Matches(msg, k.RequeueAll), key.Matches(msg, k.Drain),
		bound(msg, k.Requeue), bound(msg, k.RequeueAll), bound(msg, k.Drain):
		// a disabled action key still answers, to say why it is off
		return m.startAction(msg)
	default:
		return m.paneKey(msg)
	}
	return m, nil
}

// bound reports whether msg is one of b's keys, enabled or not.
func bound(msg tea.KeyMsg, b key.Binding) bool {
	for _, k := range b.Keys() {
		if msg.String() == k {
			return true
		}
	}
	return false
}

func (m *Model) setInterval(d time.Duration) {
	m.interval = max(250*time.Millisecond, min(d, time.Minute))
}

func (m *Model) setWindow(d time.Duration) {
	m.window = max(5*time.Second, min(d, 24*time.Hour))
	m.src.SetWindow(m.window)
}

func (m *Model) filterKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.filtering = false
		m.filter.Blur()
		m.filter.SetValue("")
	case key.Matches(msg, m.keys.Enter), msg.Type == tea.KeyDown, msg.Type == tea.KeyUp, msg.Type == tea.KeyTab:
		m.filtering = false
		m.filter.Blur()
	default:
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.refreshView()
		return m, tea.Batch(cmd, m.selectionChanged())
	}
	m.refreshView()
	return m, m.selectionChanged()
}

// paneKey sends movement keys to the focused pane.
func (m *Model) paneKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch m.focus {
	case paneQueues:
		return m, m.queuesKey(msg)
	case paneHeat:
		return m, m.heatKey(msg)
	case panePending, paneActive:
		return m.jobsKey(msg)
	}
	return m, nil
}

// move applies a movement key to a cursor over n rows with a page of page.
func (m *Model) move(msg tea.KeyMsg, cur, n, page int) (int, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		cur--
	case key.Matches(msg, k.Down):
		cur++
	case key.Matches(msg, k.Top):
		cur = 0
	case key.Matches(msg, k.Bottom):
		cur = n - 1
	case key.Matches(msg, k.PageUp):
		cur -= max(1, page)
	case key.Matches(msg, k.PageDown):
		cur += max(1, page)
	default:
		return cur, false
	}
	return max(0, min(cur, n-1)), true
}

// refreshView recomputes the queue list and keeps the selection on the
// same queue by name.
func (m *Model) refreshView() {
	if m.fold == nil {
		return
	}
	m.view = m.fold.View(m.filter.Value(), m.sortKey, m.reverse)
	m.sel = 0
	for i, qi := range m.view {
		if m.fold.Snap.Queues[qi].Name == m.selName {
			m.sel = i
			break
		}
	}
	m.keepInSight()
	if len(m.view) > 0 {
		name := m.fold.Snap.Queues[m.view[m.sel]].Name
		if name != m.selName {
			m.selName = name
			m.src.SetDetail(name)
			m.pendSel, m.actSel = 0, 0
		}
	}
}

// selected is the selected queue, or nil.
func (m *Model) selected() *model.Queue {
	if m.fold == nil || len(m.view) == 0 {
		return nil
	}
	return &m.fold.Snap.Queues[m.view[m.sel]]
}

// selectionChanged tells the source and arms a quick poll for the detail.
func (m *Model) selectionChanged() tea.Cmd {
	q := m.selected()
	if q == nil || q.Name == m.selName && q.Detail {
		return nil
	}
	m.selName = q.Name
	m.src.SetDetail(q.Name)
	m.pendSel, m.actSel = 0, 0
	m.selGen++
	gen := m.selGen
	return tea.Tick(150*time.Millisecond, func(time.Time) tea.Msg { return selMsg{gen: gen} })
}

func (m *Model) queuesKey(msg tea.KeyMsg) tea.Cmd {
	rows := m.layout().queueRows
	cur, ok := m.move(msg, m.sel, len(m.view), rows)
	if key.Matches(msg, m.keys.Enter) {
		m.focus = paneActive
		m.setEnabled()
		return nil
	}
	if !ok {
		return nil
	}
	m.sel = cur
	m.keepInSight()
	return m.selectionChanged()
}

// keepInSight scrolls the queue list only as far as the selection needs.
func (m *Model) keepInSight() {
	rows := m.layout().queueRows
	if m.sel < m.offset {
		m.offset = m.sel
	}
	if m.sel >= m.offset+rows {
		m.offset = m.sel - rows + 1
	}
	m.offset = max(0, min(m.offset, len(m.view)-rows))
}

// jobsKey moves within the pending or active pane; enter opens a job.
func (m *Model) jobsKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	q := m.selected()
	if q == nil {
		return m, nil
	}
	jobs, cur := q.PendingJobs, &m.pendSel
	if m.focus == paneActive {
		jobs, cur = q.ActiveJobs, &m.actSel
	}
	if key.Matches(msg, m.keys.Enter) && *cur < len(jobs) {
		j := jobs[*cur]
		m.detail = newDetail(q, j, m.focus == paneActive, m.width, m.height)
		if !j.Valid {
			m.detail.loaded(model.JobDetail{Queue: q.Name, ID: j.ID}, errInvalidID, m.th)
			return m, nil
		}
		src, name, id := m.src, q.Name, j.ID
		return m, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			d, err := src.Job(ctx, name, id)
			return jobMsg{queue: name, id: id, d: d, err: err}
		}
	}
	if n, ok := m.move(msg, *cur, len(jobs), 5); ok {
		*cur = n
	}
	return m, nil
}

// detailView is the job detail overlay.
type detailView struct {
	q      model.Queue
	job    model.Job
	active bool
	d      model.JobDetail
	err    error
	done   bool
	vp     viewport.Model
}

// Snapshot is the last snapshot the model folded, for tests and tools.
func (m *Model) Snapshot() *model.Snapshot { return m.snap }

// SnapshotMsg wraps a snapshot as the message a poll delivers, for tests
// and tools that drive the model without its poll loop.
func SnapshotMsg(s *model.Snapshot) tea.Msg { return snapshotMsg{snap: s} }
