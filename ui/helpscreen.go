package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// helpScreen is the help overlay: every key of every pane, what the marks
// and colours mean, and every abbreviation the screen uses. It scrolls
// when it does not fit; esc, ? or enter close it, q quits, any other key
// closes it too.
type helpScreen struct {
	c      *common
	help   help.Model
	keys   helpKeys
	vp     viewport.Model
	w, h   int
	why    string     // why the writing keys are off, or ""
	groups []keyGroup // every key map, by pane
}

type helpKeys struct{ Scroll, Page, Close, Quit key.Binding }

func newHelpScreen(c *common, hm help.Model, groups []keyGroup, why string) *helpScreen {
	return &helpScreen{c: c, help: hm, why: why, groups: groups, vp: viewport.New(10, 3),
		keys: helpKeys{
			Scroll: bind([]string{"up", "down", "k", "j"}, "↑/↓", "scroll"),
			Page:   bind([]string{"pgup", "pgdown", "home", "end", "g", "G"}, "pgup/pgdn", "page"),
			Close:  bind([]string{"esc", "?", "enter"}, "esc", "back to the dashboard"),
			Quit:   bind([]string{"q"}, "q", "quit"),
		}}
}

func (s *helpScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.vp.Width, s.vp.Height = max(10, w-2), max(3, h-2)
	s.vp.SetContent(strings.Join(s.content(w-2), "\n"))
}

func (s *helpScreen) ShortHelp() []key.Binding {
	return []key.Binding{s.keys.Scroll, s.keys.Page, s.keys.Close, s.keys.Quit}
}
func (s *helpScreen) FullHelp() [][]key.Binding { return [][]key.Binding{s.ShortHelp()} }

func (s *helpScreen) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyMsg)
	switch {
	case !ok:
		return nil
	case key.Matches(km, s.keys.Quit):
		return tea.Quit
	case key.Matches(km, s.keys.Scroll), key.Matches(km, s.keys.Page):
		switch km.String() {
		case "home", "g":
			s.vp.GotoTop()
		case "end", "G":
			s.vp.GotoBottom()
		default:
			s.vp, _ = s.vp.Update(msg)
		}
		return nil
	}
	return s.c.emit(closeMsg{})
}

func (s *helpScreen) View() string {
	title := "Help"
	if n := s.vp.TotalLineCount(); n > s.vp.Height {
		title += " · " + position(s.vp.YOffset, min(n, s.vp.YOffset+s.vp.Height), n) + " · ↑↓ scroll"
	}
	return box(s.c.th.BorderFocus, title, strings.Split(s.vp.View(), "\n"), s.w, s.h)
}

// content is the help's text for a width: each pane's keys flowed into as
// many columns as fit (every key is listed at every width), then what the
// screen's marks and words mean.
func (s *helpScreen) content(w int) []string {
	th := s.c.th
	lines := []string{"  " + th.Title.Render("Keys")}
	if s.why != "" { // first: it is why a key the operator just pressed did nothing
		lines = append(lines, "  "+th.ReadOnly.Render("read-only")+th.Dim.Render(": "+s.why+"."))
	} else {
		lines = append(lines, wrapDim(s, "r requeues only if the job's attempts still equal what you saw (the fence); D asks you to type the queue's name.", w)...)
	}
	for _, g := range s.groups {
		lines = append(lines, "  "+th.Header.Render(g.pane))
		lines = append(lines, keyColumns(s, g.keys.FullHelp(), w-4)...)
	}
	lines = append(lines, "", "  "+th.Title.Render("What the screen says"))
	for _, t := range glossary {
		lines = append(lines, wrapDim(s, t, w)...)
	}
	return lines
}

// glossary explains every mark and abbreviation the dashboard prints.
var glossary = []string{
	"Heatmap: a cell is a range of slots; its hue is the node that owns them, its brightness pending+active jobs there (log scale). " +
		"Expired leases, slots no node covers and a node that does not answer are marked as the legend under it says.",
	"Nodes: ● or [n] a primary, └ its replicas; JOBS is pending+active, RTT the round trip of its last snapshot; % shows each node's share of the cluster " +
		"(the spread) and ⚠ marks a node with 1.5× its share of the slots or of the jobs, said in numbers under the rows.",
	"Heatmap legend and inspector: sl slots, q queues; p pending, a active, ✗ expired (stuck) jobs. In mono a node's first idle cell shows its number.",
	"k, M: thousand, million (1.5k = 1,500). 12s, 9m58s, 3h02m, 4d: ages and durations.",
	"Queue list: OLDEST is how long the oldest pending job has waited; TREND the pending count over the last minute; STATUS what is wrong, the most urgent first.",
	"/ filters the queue list by name; on the Pending or Active pane it filters that pane's jobs by a part of the id.",
	"! before a queue: it has a STATUS the width does not show; ✗: its node does not answer.",
	"Lease: a claimed job's deadline on the server clock; stuck for: how long ago it ran out with no worker taking the job back.",
	"Lease timeline: leases ending in each column of now±span, the tallest column's count on the left; ▲now marks the server's now; " +
		"«n: leases that ran out before the window (stuck longer), n»: leases ending after it. Without --window the span fits the leases seen.",
	"protocol: the {emq}:version key (the wire's version), not the attempts fence. self N scripts/s: emqtop's own load on the cluster.",
	"LOAD: what emqtop's reads cost a primary, a share of one core (server time a second); past the budget (--budget, 2% by default) it is marked, " +
		"the sweep slows, then the polls (the status bar says budget: polling every …). reads changes: a poll reads only the slots written to " +
		"(CLIENT TRACKING), those whose lease ran out, the queues on screen, and the sweep (every slot once each sweep); reads … in full: every slot, each poll, and why.",
	"LIVE, PAUSED, READ-ONLY, DEGRADED n/m down: what the figures are; DEGRADED means a primary did not answer and its figures are old.",
}

// keyColumns lays bindings out as "key  desc" entries in as many columns
// as w holds.
func keyColumns(s *helpScreen, cols [][]key.Binding, w int) []string {
	th := s.c.th
	var entries [][2]string
	keyW, entryW := 0, 0
	for _, col := range cols {
		for _, b := range col {
			h := b.Help()
			entries = append(entries, [2]string{h.Key, h.Desc})
			keyW = max(keyW, ansi.StringWidth(h.Key))
		}
	}
	for _, e := range entries {
		entryW = max(entryW, keyW+2+ansi.StringWidth(e[1]))
	}
	n := max(1, min(len(entries), (w+3)/(entryW+3)))
	rows := (len(entries) + n - 1) / n
	var out []string
	for r := 0; r < rows; r++ {
		var b strings.Builder
		b.WriteString("    ")
		for c := 0; c < n; c++ {
			i := c*rows + r
			if i >= len(entries) {
				break
			}
			e := th.HelpKey.Render(fit(entries[i][0], keyW)) + "  " + th.HelpDesc.Render(entries[i][1])
			if c < n-1 {
				e = fit(e, entryW+3)
			}
			b.WriteString(e)
		}
		out = append(out, fit(b.String(), w+4))
	}
	return out
}

// wrapDim wraps a note to the width, dim, indented.
func wrapDim(s *helpScreen, text string, w int) []string {
	var out []string
	for _, l := range wrapWords(text, max(20, w-4)) {
		out = append(out, "  "+s.c.th.Dim.Render(l))
	}
	return out
}

// wrapWords breaks text at spaces only, so a flag (--window) or a name with
// a hyphen stays whole; a word wider than w alone is cut by Hardwrap.
func wrapWords(text string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
		for ansi.StringWidth(line) > w {
			parts := strings.SplitN(ansi.Hardwrap(line, w, false), "\n", 2)
			out, line = append(out, parts[0]), parts[1]
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
