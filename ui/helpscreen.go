package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// helpScreen is the help overlay: every key map, by pane, and what the
// heatmap's colours mean. Any key closes it; q quits.
type helpScreen struct {
	c       *common
	help    help.Model
	quit    key.Binding
	close   key.Binding
	w, h    int
	why     string // why the actions are off, or ""
	actions bool
}

func newHelpScreen(c *common, hm help.Model, actions bool, why string) *helpScreen {
	return &helpScreen{c: c, help: hm, actions: actions, why: why,
		quit:  bind([]string{"q"}, "q", "quit"),
		close: bind([]string{"esc"}, "any key", "back to the dashboard")}
}

func (s *helpScreen) SetSize(w, h int)          { s.w, s.h = w, h }
func (s *helpScreen) ShortHelp() []key.Binding  { return []key.Binding{s.close, s.quit} }
func (s *helpScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }

func (s *helpScreen) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
		return nil
	case key.Matches(km, s.quit):
		return tea.Quit
	}
	return s.c.emit(closeMsg{})
}

func (s *helpScreen) View() string {
	th := s.c.th
	hm := s.help
	hm.ShowAll = true
	lines := []string{"", "  " + th.Title.Render("Keys"), ""}
	for _, g := range keyGroups() {
		if g.pane == "dialogs" || g.pane == "filter" {
			continue // they say their keys where they are
		}
		lines = append(lines, "  "+th.Header.Render(g.pane))
		for _, l := range strings.Split(hm.FullHelpView(g.keys.FullHelp()), "\n") {
			lines = append(lines, "    "+l)
		}
	}
	lines = append(lines, "")
	if !s.actions {
		lines = append(lines, "  "+th.ReadOnly.Render("read-only")+th.Dim.Render(": r, R and D are off because "+s.why+"."))
	} else {
		lines = append(lines, "  "+th.Dim.Render("r requeues only if the job's attempts still equal what you saw (the fence); D asks you to type the queue's name."))
	}
	lines = append(lines, "",
		"  "+th.Dim.Render("Heatmap: hue = the node that owns the slots, brightness = pending+active (log scale),"),
		"  "+th.Dim.Render("red = expired leases there, grey = no node covers the slots. Focus it with tab and move the cursor."),
		"", "  "+th.Dim.Render("any key closes this help"))
	return box(th.BorderFocus, "Help", lines, s.w, s.h)
}
