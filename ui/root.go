package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	zone "github.com/lrstanley/bubblezone"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// focusMsg moves the focus to a pane.
type focusMsg struct{ p pane }

// Options configure the dashboard.
type Options struct {
	Target      string // what it is connected to, for the status bar
	Demo        string // "embedded demo", "demo": always in the status bar; "" for a real server
	Interval    time.Duration
	Window      time.Duration
	PollTimeout time.Duration // bound on one whole poll [10s]
	ReadOnly    bool
	// ReadOnlyWhy says why the session is read-only, for a key that writes
	// ("you are a reader"); "" says --read-only
	ReadOnlyWhy string
	Actions     model.Actions // nil: the action keys stay disabled
	Now         func() time.Time
	// Shared: the source is a poller shared by many sessions (emqtop
	// serve): its interval is the server's, and it reads the widest span
	// its sessions ask; + and - say so instead of changing anything.
	Shared bool
	// Copy puts text on the operator's clipboard (OSC 52 to the terminal,
	// which works over SSH); nil: c says copying is not available.
	Copy func(text string) error
	// MaxWidth and MaxHeight cap the size a terminal may ask (0: none):
	// under serve a client's pty request is a remote's word, and a screen
	// of 100000×60000 cells took gigabytes. Larger is drawn at the cap,
	// and said once.
	MaxWidth, MaxHeight int
}

// Model is the root of the program: the loop, the layout, the focus and
// the routing; the panes are its components.
type Model struct {
	opt  Options
	c    *common
	keys GlobalKeys
	help help.Model
	src  Source

	width, height int
	capSaid       bool // the size cap was said (once a session)
	lay           layout

	prevSnap *model.Snapshot
	raw      *model.Snapshot // the source's, before the queue memory
	pollErr  error
	errs     int // consecutive failed polls, for the back-off

	gen, pollSeq, selGen, actSeq int // ticks, polls, selections, dialogs: stale answers are dropped
	inFlight, paused             bool
	zoom                         bool // the focused pane has the whole body
	again                        bool // poll once more when the one in flight answers
	fitWindow                    bool // the timeline's span follows the leases (no --window, no < >)
	interval, window             time.Duration

	told     string // the queue the source was last asked to detail
	focus    pane
	panes    []paneEntry // the pane table (panes.go)
	drawn    []drawnPane // the panes on screen, where: arranged by relayout
	queues   *queueList
	heat     *heatPane
	nodes    *nodesPane
	pending  *jobsPane
	active   *jobsPane
	timeline *timeline
	tabs     *jobTabs // the compact layout's pending/active/timeline box
	trend    *trendPane
	foreign  *foreignPane

	// overlays, at most one of each; the dialog is above the detail
	detail   *detailView
	helpView *helpScreen
	dialog   *dialog
	find     *findView

	acts   []action // the action table (actiontable.go)
	noPerm bool     // the server refused a write: the session writes nothing more

	flash    string // the last outcome, in words
	flashBad bool

	// zonesAt says where the panes' zones fell when they were last taken
	// (zonesKey; "" when the last frame took none, or may have cut them),
	// and zoneScans counts the frames that took them
	zonesAt   string
	zoneScans int
}

// messages of the loop
type (
	snapshotMsg struct {
		seq      int
		external bool // from SnapshotMsg: a tool's, not the loop's
		snap     *model.Snapshot
		err      error
	}
	tickMsg  struct{ gen int }
	selMsg   struct{ gen int }
	clockMsg struct{}
)

// New builds the dashboard on a source and a theme.
func New(src Source, th *theme.Theme, opt Options) *Model {
	if opt.Interval <= 0 {
		opt.Interval = time.Second
	}
	fit := opt.Window <= 0 // no --window: fitted to the leases, from a minute
	if fit {
		opt.Window = time.Minute
	}
	if opt.PollTimeout <= 0 {
		opt.PollTimeout = 10 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	c := &common{th: th, now: opt.Now, mem: newQueueMemory(), tick: tea.Tick, zones: zone.New()}
	m := &Model{opt: opt, c: c, fitWindow: fit, keys: newGlobalKeys(), src: src, interval: opt.Interval, window: opt.Window,
		queues: newQueueList(c), heat: newHeatPane(c), nodes: &nodesPane{c: c},
		pending: newJobsPane(c, false), active: newJobsPane(c, true), timeline: &timeline{c: c}, trend: &trendPane{c: c}}
	m.tabs = &jobTabs{pending: m.pending, active: m.active, timeline: m.timeline}
	m.foreign = newForeignPane(c)
	m.panes = m.newPanes()
	m.help = help.New()
	m.help.Styles.ShortKey, m.help.Styles.ShortDesc = th.HelpKey, th.HelpDesc
	m.help.Styles.FullKey, m.help.Styles.FullDesc = th.HelpKey, th.HelpDesc
	m.help.Styles.ShortSeparator, m.help.Styles.FullSeparator, m.help.Styles.Ellipsis = th.Dim, th.Dim, th.Dim
	m.acts = m.newActions()
	m.applyFocus()
	m.applyModes()
	return m
}

// Close ends what the session keeps running beside its loop (the mouse
// zones' worker), once its program has ended: a View after Close would
// wait for the worker for good.
func (m *Model) Close() {
	if m.c.zones != nil {
		m.c.zones.Close()
	}
}

// Init starts the poll loop and the clock.
func (m *Model) Init() tea.Cmd {
	m.src.SetWindow(m.window)
	return tea.Batch(m.pollCmd(), m.clock())
}

func (m *Model) clock() tea.Cmd {
	return m.c.tick(time.Second, func(time.Time) tea.Msg { return clockMsg{} })
}

// pollCmd runs one poll; it captures values only, and its answer carries
// the poll's sequence.
func (m *Model) pollCmd() tea.Cmd {
	m.inFlight = true
	m.pollSeq++
	src, timeout, seq := m.src, m.opt.PollTimeout, m.pollSeq
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		s, err := src.Poll(ctx)
		return snapshotMsg{seq: seq, snap: s, err: err}
	}
}

// pollNow polls at once unless a poll runs or the dashboard is paused.
// pollOnce polls now even while paused, for what the operator just asked
// to see (a queue selected, a new window); a poll in flight is followed by
// one more when it answers, since it was sent with the old request.
func (m *Model) pollOnce() tea.Cmd {
	if m.inFlight {
		m.again = true
		return nil
	}
	m.gen++
	return m.pollCmd()
}

func (m *Model) pollNow() tea.Cmd {
	if m.inFlight || m.paused {
		return nil
	}
	m.gen++ // the tick already armed is dropped
	return m.pollCmd()
}

// next arms the next poll: after the interval (or the longer one the
// poller's self-load budget asks for), or longer while polls fail.
func (m *Model) next() tea.Cmd {
	d := m.pollEvery()
	for i := 0; i < m.errs && d < 30*time.Second; i++ {
		d *= 2
	}
	gen := m.gen
	return m.c.tick(min(d, 30*time.Second), func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// pollEvery is the interval, stretched when the budget asks.
func (m *Model) pollEvery() time.Duration {
	if m.c.snap != nil {
		return max(m.interval, m.c.snap.Poll.MinInterval)
	}
	return m.interval
}

// Update is the root: the loop's messages here, the components' messages
// to the root's handlers, keys to routing.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	return m, tea.Batch(cmd, m.drain())
}

// drain handles what the components emitted, in order.
func (m *Model) drain() tea.Cmd {
	var cmds []tea.Cmd
	for len(m.c.out) > 0 {
		msg := m.c.out[0]
		m.c.out = m.c.out[1:]
		cmds = append(cmds, m.component(msg))
	}
	return tea.Batch(cmds...)
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.MouseMsg:
		return m.mouse(msg)
	case tea.WindowSizeMsg:
		if w, h := m.opt.MaxWidth, m.opt.MaxHeight; w > 0 && h > 0 && (msg.Width > w || msg.Height > h) {
			if !m.capSaid {
				m.capSaid = true
				m.say(fmt.Sprintf("this terminal is %d×%d: drawn as %d×%d, the most served", msg.Width, msg.Height, min(msg.Width, w), min(msg.Height, h)), false)
			}
			msg.Width, msg.Height = min(msg.Width, w), min(msg.Height, h)
		}
		m.width, m.height = msg.Width, msg.Height
		m.help.Width = msg.Width
		m.relayout()
	case snapshotMsg:
		return m.snapshot(msg)
	case tickMsg:
		if msg.gen == m.gen && !m.paused && !m.inFlight {
			return m.pollCmd()
		}
	case selMsg:
		// the selection settled: read its detail now rather than at the
		// next tick; once while paused (else it would wait for ever)
		if msg.gen == m.selGen {
			return m.pollOnce()
		}
	case clockMsg:
		return m.clock()
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			return m.typedAhead(msg)
		}
		return m.key(msg)
	default:
		return m.component(msg)
	}
	return nil
}

// snapshot folds a poll's answer and arms the next poll.
func (m *Model) snapshot(msg snapshotMsg) tea.Cmd {
	if !msg.external {
		if msg.seq != m.pollSeq {
			return nil // the answer of a poll that is no longer the latest
		}
		m.inFlight = false
	}
	if msg.err == nil && msg.snap == nil {
		msg.err = errors.New("the source returned no snapshot")
	}
	var cmds []tea.Cmd
	if msg.err != nil {
		m.pollErr = msg.err
		m.errs++
	} else {
		m.pollErr, m.errs = nil, 0
		m.raw = msg.snap
		m.prevSnap, m.c.snap = m.c.snap, m.c.mem.apply(msg.snap, m.opt.Now())
		m.c.fold = model.NewFoldAfter(m.c.fold, m.c.snap)
		m.queues.refresh()
		if m.dialog != nil {
			m.dialog.follow(msg.snap)
		}
		// a new selection is read when it settles (paused too); the span
		// may fit the leases just read, which reads again at once
		cmds = append(cmds, m.selectionChanged(), m.fitToLeases())
	}
	switch {
	case m.again:
		m.again = false
		cmds = append(cmds, m.pollOnce())
	case !m.paused && !m.inFlight:
		cmds = append(cmds, m.next())
	}
	return tea.Batch(cmds...)
}

// farthestLease is how far in the future, in ms, the queue's last live
// lease ends, from the jobs read (the earliest deadlines only) and the
// histogram (every lease): leases beyond the window count as one step
// past it, so the span grows a step at a time until it holds them.
func farthestLease(q *model.Queue, edges []int64) int64 {
	var far int64
	for _, j := range q.ActiveJobs() {
		if j.ScoreOff == 0 { // a deadline of +inf is no lease to fit the window to
			far = max(far, j.Score-q.ServerTimeMs)
		}
	}
	hist := q.Hist()
	if len(edges) == 0 || len(hist) != len(edges)+1 {
		return far
	}
	last := edges[len(edges)-1]
	if hist[len(hist)-1] > 0 {
		return max(far, last*2)
	}
	for i := len(edges) - 1; i >= 1; i-- {
		if hist[i] > 0 && edges[i] > 0 {
			return max(far, edges[i])
		}
	}
	return far
}

// windowSteps are the spans the fitted timeline chooses from.
var windowSteps = []time.Duration{5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour}

// fitToLeases fits the timeline's span to the selected queue's live
// leases: the smallest step that holds the farthest deadline read, so
// one-second leases are not bunched into one column of a minute. It moves
// only when the step changes, and never once the operator chose a span.
func (m *Model) fitToLeases() tea.Cmd {
	q := m.c.sel
	if !m.fitWindow || q == nil || !q.Detail {
		return nil
	}
	far := farthestLease(q, m.c.snap.Edges)
	if far <= 0 {
		return nil // nothing live to fit to: keep the span
	}
	want := windowSteps[len(windowSteps)-1]
	for _, s := range windowSteps {
		if s.Milliseconds() >= far*5/4 {
			want = s
			break
		}
	}
	if want == m.window {
		return nil
	}
	return m.setWindow(want, "fitted to the leases seen; < > to choose")
}

// typedAhead takes keys that arrived in one read (typed fast, or over a
// slow SSH link: "/orders", "jjj") one at a time, as if typed slowly; a
// bracketed paste stays whole: it is text, never a string of commands.
func (m *Model) typedAhead(msg tea.KeyMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range msg.Runes {
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// Snapshot is the last snapshot the model folded, for tests and tools.
func (m *Model) Snapshot() *model.Snapshot { return m.c.snap }

// SnapshotMsg wraps a snapshot as the message a poll delivers, for tests
// and tools that drive the model without its poll loop.
func SnapshotMsg(s *model.Snapshot) tea.Msg { return snapshotMsg{external: true, snap: s} }
