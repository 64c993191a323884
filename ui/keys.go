package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key of the dashboard. One table drives dispatch, the help
// on screen and the README's key table (KeyTable), so they cannot drift.
type KeyMap struct {
	Up, Down, Left, Right, Top, Bottom, PageUp, PageDown key.Binding
	Next, Prev, Enter, Back                              key.Binding
	Filter, Sort, Reverse, Pause, Faster, Slower         key.Binding
	Narrow, Widen                                        key.Binding
	Requeue, RequeueAll, Drain                           key.Binding
	Help, Quit, ForceQuit                                key.Binding
}

// DefaultKeyMap is the key map.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, h string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, h))
	}
	return KeyMap{
		Up:         b([]string{"up", "k"}, "↑/k", "move up"),
		Down:       b([]string{"down", "j"}, "↓/j", "move down"),
		Left:       b([]string{"left", "h"}, "←/h", "heatmap: move left"),
		Right:      b([]string{"right", "l"}, "→/l", "heatmap: move right"),
		Top:        b([]string{"g", "home"}, "g", "first"),
		Bottom:     b([]string{"G", "end"}, "G", "last"),
		PageUp:     b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:   b([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
		Next:       b([]string{"tab"}, "tab", "next pane"),
		Prev:       b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Enter:      b([]string{"enter"}, "enter", "open"),
		Back:       b([]string{"esc"}, "esc", "back, cancel"),
		Filter:     b([]string{"/"}, "/", "filter"),
		Sort:       b([]string{"s"}, "s", "sort"),
		Reverse:    b([]string{"S"}, "S", "reverse the sort"),
		Pause:      b([]string{"p"}, "p", "pause"),
		Faster:     b([]string{"+", "="}, "+", "poll more often"),
		Slower:     b([]string{"-"}, "-", "poll less often"),
		Narrow:     b([]string{"<", ","}, "<", "narrow the lease timeline"),
		Widen:      b([]string{">", "."}, ">", "widen the lease timeline"),
		Requeue:    b([]string{"r"}, "r", "requeue job"),
		RequeueAll: b([]string{"R"}, "R", "requeue expired"),
		Drain:      b([]string{"D"}, "D", "drain queue"),
		Help:       b([]string{"?"}, "?", "help"),
		Quit:       b([]string{"q"}, "q", "quit"),
		ForceQuit:  b([]string{"ctrl+c"}, "ctrl+c", "quit, always"),
	}
}

// ShortHelp is the line always on screen.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Next, k.Enter, k.Requeue, k.RequeueAll, k.Drain, k.Filter, k.Sort, k.Pause, k.Help, k.Quit}
}

// DetailHelp is the help line of the job detail, whose payload scrolls
// with the viewport's own keys; an active job can be requeued from it.
func (k KeyMap) DetailHelp(active bool) []key.Binding {
	requeue := key.NewBinding(key.WithDisabled())
	if active {
		requeue = k.Requeue
	}
	return []key.Binding{
		key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll")),
		key.NewBinding(key.WithKeys("pgup", "pgdown"), key.WithHelp("pgup/pgdn", "page")),
		key.NewBinding(key.WithKeys("esc", "enter"), key.WithHelp("esc", "back")),
		requeue,
		k.Quit,
	}
}

// FullHelp is the help screen, a column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Left, k.Right, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Next, k.Prev, k.Enter, k.Back, k.Filter, k.Sort, k.Reverse},
		{k.Pause, k.Faster, k.Slower, k.Narrow, k.Widen},
		{k.Requeue, k.RequeueAll, k.Drain, k.Help, k.Quit, k.ForceQuit},
	}
}

// KeyTable renders the full help as a Markdown table, for the README.
func KeyTable(k KeyMap) string {
	var b strings.Builder
	b.WriteString("| key | does |\n|---|---|\n")
	for _, col := range k.FullHelp() {
		for _, kb := range col {
			h := kb.Help()
			fmt.Fprintf(&b, "| `%s` | %s |\n", h.Key, h.Desc)
		}
	}
	return b.String()
}
