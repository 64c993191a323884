package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/echomq/emqtop/theme"
)

func bind(keys []string, k, h string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, h))
}

// GlobalKeys act wherever the focus is. R and D are actions, with a danger
// mark: the action table (actiontable.go) switches every writing key.
type GlobalKeys struct {
	Next, Prev, Back, Filter, Sort, Reverse    key.Binding
	Hold                                       key.Binding
	Pause, Faster, Slower, Narrow, Widen, Span key.Binding
	Idle, Zoom, HeatMode, Spread, Find, Copy   key.Binding
	Plan                                       key.Binding
	RequeueAll, Drain                          key.Binding
	Help, Quit, ForceQuit                      key.Binding
}

func newGlobalKeys() GlobalKeys {
	return GlobalKeys{
		Next:       bind([]string{"tab"}, "tab", "next pane"),
		Prev:       bind([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Back:       bind([]string{"esc"}, "esc", "back: the message, then the filter"),
		Filter:     bind([]string{"/"}, "/", "filter"),
		Sort:       bind([]string{"s"}, "s", "sort"),
		Reverse:    bind([]string{"S"}, "S", "reverse the sort"),
		Hold:       bind([]string{"o"}, "o", "hold the rows' order, or follow the sort again"),
		Pause:      bind([]string{"p"}, "p", "pause"),
		Faster:     bind([]string{"+", "="}, "+", "poll more often"),
		Slower:     bind([]string{"-"}, "-", "poll less often"),
		Narrow:     bind([]string{"<", ","}, "<", "narrow the lease timeline"),
		Widen:      bind([]string{">", "."}, ">", "widen the lease timeline"),
		Span:       bind([]string{"t"}, "t", "trend: the last minute or hour"),
		Idle:       bind([]string{"i"}, "i", "hide or show idle (emptied) queues"),
		Zoom:       bind([]string{"z"}, "z", "zoom: the focused pane takes the screen"),
		HeatMode:   bind([]string{"m"}, "m", "heatmap mode: jobs, queues, expired, keys, CPU, network"),
		Spread:     bind([]string{"%"}, "%", "nodes: counts or each one's share (the spread)"),
		Plan:       bind([]string{"b"}, "b", "the spread: a rebalancing plan, previewed (nothing is sent)"),
		Find:       bind([]string{"f"}, "f", "find a job by its id, on every primary"),
		Copy:       bind([]string{"c"}, "c", "copy the selected job id, else the queue name (OSC 52)"),
		RequeueAll: bind([]string{"R"}, "R", "requeue expired"),
		Drain:      bind([]string{"D"}, "D", "drain queue"),
		Help:       bind([]string{"?"}, "?", "help"),
		Quit:       bind([]string{"q"}, "q", "quit"),
		ForceQuit:  bind([]string{"ctrl+c"}, "ctrl+c", "quit, always"),
	}
}

func (k GlobalKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.RequeueAll, k.Drain, k.Filter, k.Sort, k.Pause, k.Help, k.Quit}
}

func (k GlobalKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev, k.Back, k.Filter, k.Sort, k.Reverse, k.Hold, k.Idle, k.Zoom, k.Find, k.Copy},
		{k.Pause, k.Faster, k.Slower, k.Narrow, k.Widen, k.Span, k.HeatMode, k.Spread, k.Plan},
		{k.RequeueAll, k.Drain, k.Help, k.Quit, k.ForceQuit},
	}
}

// moveKeys move a cursor over rows: the queue list, the job panes.
type moveKeys struct {
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
}

func newMoveKeys() moveKeys {
	return moveKeys{
		Up:       bind([]string{"up", "k"}, "↑/k", "move up"),
		Down:     bind([]string{"down", "j"}, "↓/j", "move down"),
		Top:      bind([]string{"g", "home"}, "g", "first"),
		Bottom:   bind([]string{"G", "end"}, "G", "last"),
		PageUp:   bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: bind([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
	}
}

// move applies a movement key to cur over n rows with a page of page.
func (k moveKeys) move(msg tea.KeyMsg, cur, n, page int) (int, bool) {
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

// matches reports whether msg is one of the enabled bindings of km.
func matches(msg tea.KeyMsg, km interface{ FullHelp() [][]key.Binding }) bool {
	for _, col := range km.FullHelp() {
		for _, b := range col {
			if key.Matches(msg, b) {
				return true
			}
		}
	}
	return false
}

// bound reports whether msg is one of b's keys, enabled or not: a disabled
// action key still answers, to say why it is off.
func bound(msg tea.KeyMsg, b key.Binding) bool {
	for _, k := range b.Keys() {
		if msg.String() == k {
			return true
		}
	}
	return false
}

// keyGroup is one pane's keys, for the help screen and the key table.
type keyGroup struct {
	pane string
	keys interface{ FullHelp() [][]key.Binding }
}

// keyGroups are every key map: the root's, each pane's from the pane
// table, then the overlays'.
func (m *Model) keyGroups() []keyGroup {
	gs := []keyGroup{{"everywhere", m.keys}}
	for _, e := range m.panes {
		if e.focus && len(e.c.FullHelp()) > 0 {
			gs = append(gs, keyGroup{e.name, e.c})
		}
	}
	return append(gs, keyGroup{"job detail", newDetailKeys()}, keyGroup{"filter", newFilterKeys()},
		keyGroup{"find", newFindKeys()}, keyGroup{"dialogs", newDialogKeys()})
}

// KeyTable renders every key map, by pane, as a Markdown table, for the
// README and `emqtop keys`: the same tables drive dispatch and the help.
// A key that writes says so, from the action table: --read-only turns
// those off.
func KeyTable() string {
	writes := map[string]bool{}
	th, _ := theme.New(lipgloss.NewRenderer(io.Discard), "mono")
	m := New(nil, th, Options{})
	defer m.Close()
	for _, a := range m.acts {
		if a.writes {
			writes[a.b.Help().Key+a.b.Help().Desc] = true
		}
	}
	var b strings.Builder
	b.WriteString("| pane | key | does |\n|---|---|---|\n")
	for _, g := range m.keyGroups() {
		for _, col := range g.keys.FullHelp() {
			for _, kb := range col {
				h := kb.Help()
				does := h.Desc
				if writes[h.Key+h.Desc] {
					does += " (writes: off under --read-only)"
				}
				fmt.Fprintf(&b, "| %s | `%s` | %s |\n", g.pane, h.Key, does)
			}
		}
	}
	return b.String()
}

// pendingKeys are the keys both job panes share: r is the Active pane's
// alone (on Pending it only says to select an active job).
type pendingKeys struct{ jobKeys }

func (k pendingKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top}, {k.Bottom, k.PageUp, k.PageDown}, {k.Open}}
}
