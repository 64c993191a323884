package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
)

// copySelected copies the job under the cursor of a focused job pane, else
// the selected queue's name. An id that failed the gate is never copied:
// it came from the server and may carry anything.
func (m *Model) copySelected() tea.Cmd {
	text, what := "", ""
	if m.focus == panePending || m.focus == paneActive {
		p := m.pending
		if m.focus == paneActive {
			p = m.active
		}
		if _, jobs := p.jobs(); p.cur < len(jobs) {
			if !jobs[p.cur].Valid {
				return m.say("this id is invalid: it is shown escaped and never copied", true)
			}
			text, what = jobs[p.cur].ID, "job id"
		}
	}
	if text == "" && m.c.sel != nil {
		if n := m.c.sel.Name; textgate.Text(n) != n {
			// its escaped form is another name (the gate keeps them apart),
			// and the raw one would put a terminal's controls on the clipboard
			return m.say("this queue name holds characters a terminal acts on: it is shown escaped and never copied", true)
		}
		text, what = m.c.sel.Name, "queue name"
	}
	return m.copyText(text, what)
}

func (m *Model) copyText(text, what string) tea.Cmd {
	switch {
	case text == "":
		return m.say("nothing selected to copy", true)
	case m.opt.Copy == nil:
		return m.say("copying is not available here", true)
	}
	if err := m.opt.Copy(text); err != nil {
		return m.say("copy failed: "+textgate.Bounded(err.Error(), 120), true)
	}
	return m.say(fmt.Sprintf("copied the %s %s (OSC 52: the terminal must allow clipboard writes)", what, textgate.Bounded(text, 60)), false)
}
