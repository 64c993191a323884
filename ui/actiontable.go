package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// action is one thing a key does, in the shape of k9s' action table and
// lazygit's bindings: its binding (held by the key map whose help shows
// it), whether it writes (k9s' Dangerous: read-only removes every such
// action at once), why it is off just now (lazygit's disabledReason: ""
// when it is on), and what it runs. The root dispatches by the table and
// switches every binding by it (SetEnabled), so the help line, the help
// screen, `emqtop keys` and the README's key table, all drawn from the
// key maps, say what the keys do now; a key that is off says why when
// pressed.
type action struct {
	b      *key.Binding
	writes bool
	off    func(m *Model) string
	// run is what the key does; nil when the component that holds the
	// binding runs it (its Update), the table only switching it
	run func(m *Model, msg tea.KeyMsg) tea.Cmd
}

// newActions is the session's action table: every key the root acts on,
// and every writing key of a component.
func (m *Model) newActions() []action {
	k := &m.keys
	do := func(b *key.Binding, run func(m *Model, msg tea.KeyMsg) tea.Cmd) action {
		return action{b: b, run: run}
	}
	set := func(f func(m *Model)) func(*Model, tea.KeyMsg) tea.Cmd {
		return func(m *Model, _ tea.KeyMsg) tea.Cmd { f(m); return nil }
	}
	shared := func(m *Model) string {
		if m.opt.Shared {
			return fmt.Sprintf("the server polls every %s for every session: + and - change nothing here", every(m.interval))
		}
		return ""
	}
	return []action{
		do(&k.Quit, func(*Model, tea.KeyMsg) tea.Cmd { return tea.Quit }),
		do(&k.Help, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.openHelp(); return nil }),
		do(&k.Back, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.back() }),
		do(&k.Next, set(func(m *Model) { m.setFocus(m.nextFocus(+1)) })),
		do(&k.Prev, set(func(m *Model) { m.setFocus(m.nextFocus(-1)) })),
		do(&k.Filter, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.startFilter() }),
		do(&k.Sort, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.queues.nextSort(); return m.selectionChanged() }),
		do(&k.Reverse, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.queues.reverseSort(); return m.selectionChanged() }),
		do(&k.Hold, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.toggleHold() }),
		do(&k.Pause, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.paused = !m.paused; return m.pollNow() }),
		{b: &k.Faster, off: shared, run: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.setInterval(intervalStep(m.interval, -1)) }},
		{b: &k.Slower, off: shared, run: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.setInterval(intervalStep(m.interval, +1)) }},
		do(&k.Narrow, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.fitWindow = false; return m.setWindow(m.window/2, "") }),
		do(&k.Widen, func(m *Model, _ tea.KeyMsg) tea.Cmd { m.fitWindow = false; return m.setWindow(m.window*2, "") }),
		do(&k.Span, set(func(m *Model) { m.trend.long = !m.trend.long })),
		do(&k.Idle, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.toggleIdle() }),
		do(&k.HeatMode, set(func(m *Model) { m.nextHeatMode() })),
		do(&k.Plan, set(func(m *Model) { m.togglePlan() })),
		do(&k.Spread, set(func(m *Model) { m.toggleSpread() })),
		{b: &k.Find, off: func(m *Model) string {
			if _, ok := m.src.(Finder); !ok {
				return "find is not available on this source"
			}
			return ""
		}, run: func(m *Model, _ tea.KeyMsg) tea.Cmd { m.openFind(); return nil }},
		do(&k.Copy, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.copySelected() }),
		do(&k.Zoom, set(func(m *Model) { m.zoom = !m.zoom; m.relayout() })),
		{b: &m.active.keys.Requeue, writes: true, off: func(m *Model) string {
			if m.focus != paneActive {
				return "select an active job first: tab to the Active pane, move with ↑/↓, then r"
			}
			return ""
		}},
		{b: &k.RequeueAll, writes: true, run: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.startRequeueAll() }},
		{b: &k.Drain, writes: true, run: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.startDrain() }},
	}
}

// writesOff says why this session writes nothing ("" when it may): a
// reader of serve, --read-only, no write access, or the server's NOPERM.
func (m *Model) writesOff() string {
	switch {
	case m.noPerm:
		return "the server refused writes for this user (NOPERM)"
	case m.opt.ReadOnly && m.opt.ReadOnlyWhy != "":
		return m.opt.ReadOnlyWhy
	case m.opt.ReadOnly:
		return "--read-only is set"
	case m.opt.Actions == nil:
		return "no write access was configured"
	}
	return ""
}

// why says why a is off now, "" when it is on.
func (m *Model) why(a action) string {
	if a.writes {
		if w := m.writesOff(); w != "" {
			return "read-only: " + m.writingKeys() + " are off because " + w
		}
	}
	if a.off != nil {
		return a.off(m)
	}
	return ""
}

// writingKeys names the keys that write, from the table ("r, R and D").
func (m *Model) writingKeys() string {
	var ks []string
	for _, a := range m.acts {
		if a.writes {
			ks = append(ks, a.b.Help().Key)
		}
	}
	if len(ks) < 2 {
		return strings.Join(ks, "")
	}
	return strings.Join(ks[:len(ks)-1], ", ") + " and " + ks[len(ks)-1]
}

// applyModes switches every binding of the table by its reason: the help
// shows only what works now. It runs when a mode changes (the focus, the
// session's write access).
func (m *Model) applyModes() {
	for _, a := range m.acts {
		a.b.SetEnabled(m.why(a) == "")
	}
}

// act runs the table's action for a key the focused pane did not take: an
// enabled one of the root's, else the reason of one that is off.
func (m *Model) act(msg tea.KeyMsg) (tea.Cmd, bool) {
	for _, a := range m.acts {
		if a.run != nil && key.Matches(msg, *a.b) {
			return a.run(m, msg), true
		}
	}
	for _, a := range m.acts {
		if bound(msg, *a.b) {
			if why := m.why(a); why != "" {
				return m.say(why, true), true
			}
		}
	}
	return nil, false
}
