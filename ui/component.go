package ui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	zone "github.com/lrstanley/bubblezone"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// Source is where snapshots come from: the poller, or a fake in tests.
type Source interface {
	// Poll takes one snapshot; it is never called while one is running.
	Poll(ctx context.Context) (*model.Snapshot, error)
	// SetDetail names the queues whose jobs and lease histogram to read.
	SetDetail(queues ...string)
	// SetWindow sets the span of the lease histogram, now±w.
	SetWindow(w time.Duration)
	// Job reads one job row for the detail view.
	Job(ctx context.Context, queue, id string) (model.JobDetail, error)
}

// Component is a pane or an overlay, in the shape of soft-serve's
// common.Component: its keys (help.KeyMap, which also drive dispatch), its
// size, Update and View.
type Component interface {
	help.KeyMap
	SetSize(w, h int)
	Update(msg tea.Msg) tea.Cmd
	View() string
}

// focusable is a pane that can hold the focus.
type focusable interface {
	Component
	SetFocus(bool)
}

// common is what the components of one session read: the theme, the
// clock, the latest snapshot and its fold, the selected queue. The root
// writes it; components never do.
type common struct {
	th   *theme.Theme
	now  func() time.Time
	snap *model.Snapshot
	fold *model.Fold
	sel  *model.Queue // the selected queue, nil when none
	heat heatCache
	mem  *queueMemory // the queues seen this session
	out  []tea.Msg    // what the components emitted for the root
	seqs int          // the session's sequence of async work (nextSeq)
	// tick is tea.Tick: a message after a while. Tests put a tick that
	// answers at once with a mark, so they run every other command to its
	// answer and never wait for time.
	tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// zones are the session's mouse zones (bubblezone): the root marks
	// each pane it draws, its View takes the marks out and keeps their
	// places; nil in the components' own tests
	zones *zone.Manager
}

// mark makes s the mouse zone id (a row, a pane) when zones are kept.
func (c *common) mark(id, s string) string {
	if c.zones == nil {
		return s
	}
	return c.zones.Mark(id, s)
}

// hit is where msg fell inside zone id, from its top-left cell; ok is
// false when it fell outside (or the zone was not drawn).
func (c *common) hit(id string, msg tea.MouseMsg) (x, y int, ok bool) {
	if c.zones == nil {
		return -1, -1, false
	}
	z := c.zones.Get(id)
	if !z.InBounds(msg) {
		return -1, -1, false
	}
	x, y = z.Pos(msg)
	return x, y, true
}

// nextSeq numbers a piece of async work for the whole session: an answer
// carries its number, and one that is not the awaited number is dropped.
// A component's own counter restarts with the component, so an answer of
// an earlier overlay could be taken by a later one.
func (c *common) nextSeq() int {
	c.seqs++
	return c.seqs
}

// heatCache keeps the heatmap's cells of one fold and size, so frames
// between polls bin nothing again.
type heatCache struct {
	fold  *model.Fold
	n     int
	cells []model.HeatCell
}

func (c *common) heatmap(n int) []model.HeatCell {
	h := &c.heat
	if h.fold != c.fold || h.n != n {
		h.fold, h.n, h.cells = c.fold, n, c.fold.HeatmapInto(h.cells, n) // the last cells are read by no one now
	}
	return h.cells
}

// emit hands the root a message (an intent: open this job, close me),
// which it handles as soon as the component's Update returns, before the
// next key: an intent is in effect for the very next key, however fast the
// keys come (a command's message would arrive after keys already queued).
func (c *common) emit(msg tea.Msg) tea.Cmd {
	c.out = append(c.out, msg)
	return nil
}

// messages from components to the root
type (
	// openJobMsg: enter on a job of the pending or active pane.
	openJobMsg struct {
		q      model.Queue
		job    model.Job
		active bool
		found  bool // opened by a find: the state is the row's, once read
	}
	// requeueMsg: r on an active job (its pane or its detail).
	requeueMsg struct {
		q   model.Queue
		job model.Job
	}
	// selectQueueMsg: enter on the heatmap selects the busiest queue there.
	selectQueueMsg struct{ name string }
	// flashMsg: a component's word for the help line.
	flashMsg struct {
		text string
		bad  bool
	}
	// closeMsg: an overlay is done.
	closeMsg struct{}
	// copyMsg: c in an overlay; the root holds the clipboard.
	copyMsg struct{ text, what string }
)
