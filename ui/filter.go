package ui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// textFilter is a pane's filter: while it is typed every key is text but
// its own (enter keeps it, esc clears it); then it narrows what the pane
// lists until cleared. The queue list and the job panes each own one.
type textFilter struct {
	input  textinput.Model
	typing bool
	keys   filterKeys
}

func newTextFilter(placeholder string) textFilter {
	in := newInput()
	in.Prompt, in.CharLimit, in.Placeholder = "/", 200, placeholder
	return textFilter{input: in, keys: newFilterKeys()}
}

func (f *textFilter) Value() string       { return f.input.Value() }
func (f *textFilter) SetValue(s string)   { f.input.SetValue(s) }
func (f *textFilter) capturing() bool     { return f.typing }
func (f *textFilter) View() string        { return f.input.View() }
func (f *textFilter) help() []key.Binding { return f.keys.ShortHelp() }

// shortHelp and fullHelp are the pane's help, or the filter's own while it
// is typed (then every other key is text).
func (f *textFilter) shortHelp(pane help.KeyMap) []key.Binding {
	if f.typing {
		return f.help()
	}
	return pane.ShortHelp()
}

func (f *textFilter) fullHelp(pane help.KeyMap) [][]key.Binding {
	if f.typing {
		return [][]key.Binding{f.help()}
	}
	return pane.FullHelp()
}

// start opens the input.
func (f *textFilter) start() tea.Cmd {
	f.typing = true
	return f.input.Focus()
}

// key types into the filter; enter (or a move key) keeps it, esc clears
// it, both end the typing.
func (f *textFilter) key(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, f.keys.Clear):
		f.input.SetValue("")
		fallthrough
	case key.Matches(msg, f.keys.Keep):
		f.typing = false
		f.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	f.input, cmd = f.input.Update(msg)
	return cmd
}

// clear drops the filter; it reports whether there was one.
func (f *textFilter) clear() bool {
	if f.input.Value() == "" {
		return false
	}
	f.input.SetValue("")
	return true
}

// newInput is a text input whose cursor does not blink: a blink is a
// redraw twice a second, over SSH for every session, and a command that
// never ends (the tests run every command to its answer).
func newInput() textinput.Model {
	in := textinput.New()
	in.Cursor.SetMode(cursor.CursorStatic)
	return in
}
