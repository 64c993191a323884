package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
)

// foreignPane lists the keys that look like EchoMQ's but are outside its
// grammar (the nodes pane only counts them): each key, gated, and why it
// is not EchoMQ's. It shares the nodes pane's place, and the lower box in
// the compact layout, and is drawn when it has the focus.
type foreignPane struct {
	c       *common
	keys    moveKeys
	w, h    int
	focused bool
	cur     int
}

func newForeignPane(c *common) *foreignPane {
	return &foreignPane{c: c, keys: newMoveKeys()}
}

func (p *foreignPane) SetSize(w, h int)         { p.w, p.h = w, h }
func (p *foreignPane) SetFocus(f bool)          { p.focused = f }
func (p *foreignPane) ShortHelp() []key.Binding { return []key.Binding{p.keys.Down, p.keys.Up} }
func (p *foreignPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.keys.Up, p.keys.Down, p.keys.Top}, {p.keys.Bottom, p.keys.PageUp, p.keys.PageDown}}
}

func (p *foreignPane) rows() int { return max(1, p.h-2) }

func (p *foreignPane) count() int {
	if p.c.snap == nil {
		return 0
	}
	return len(p.c.snap.ForeignKeys)
}

func (p *foreignPane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if n, ok := p.keys.move(msg, p.cur, p.count(), p.rows()); ok {
			p.cur = n
		}
	case tea.MouseMsg:
		if i := p.offset() + msg.Y - 1; msg.Y >= 1 && i < min(p.count(), p.offset()+p.rows()) { // under the border
			p.cur = i
		}
	}
	return nil
}

// offset is the first row shown: the cursor stays on screen.
func (p *foreignPane) offset() int { return max(0, min(p.cur, p.count()-1)-p.rows()+1) }

func (p *foreignPane) View() string {
	th, s := p.c.th, p.c.snap
	title := "Foreign keys"
	if s == nil {
		return box(focusBorder(th, p.focused), title, nil, p.w, p.h)
	}
	in := p.w - 2
	var lines []string
	if len(s.ForeignKeys) == 0 {
		lines = append(lines, th.Dim.Render(" none: every key that looks like EchoMQ's is in its grammar"))
	}
	keyW := min(48, max(12, in/2))
	off := p.offset()
	for i := off; i < min(len(s.ForeignKeys), off+p.rows()); i++ {
		f := s.ForeignKeys[i]
		line := " " + fit(textgate.Text(f.Key), keyW) + "  " + th.Dim.Render(textgate.Text(f.Reason))
		line = fit(line, in)
		if p.focused && i == p.cur {
			line = th.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	title = fmt.Sprintf("Foreign keys %s", commas(int64(s.ForeignCount)))
	if s.ForeignCount > len(s.ForeignKeys) {
		title += fmt.Sprintf(" · the first %d shown", len(s.ForeignKeys))
	}
	if len(s.ForeignKeys) > p.rows() {
		title += " · " + position(off, min(len(s.ForeignKeys), off+p.rows()), len(s.ForeignKeys))
	}
	return box(focusBorder(th, p.focused), title, lines, p.w, p.h)
}
