package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
)

// View draws the screen: the status bar, the panes or an overlay, the help
// line.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	if m.lay.tooSmall {
		msg := fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, m.c.th.Warn.Render(fit(msg, m.width)))
	}
	m.syncPlan()
	// the body is the top screen overlay, else the panes; the boxes open
	// above it are drawn over it, the top one last
	slots := m.overlays()
	var boxes []Component
	var body string
	inNodes := false // the connection's facts stand in the nodes pane
	for _, o := range slots {
		if c := o.open(); c != nil && o.box {
			boxes = append(boxes, c)
		} else if c != nil {
			body = c.View()
			break
		}
	}
	var views []string // the panes', unmarked
	switch {
	case body != "":
	case m.c.fold == nil:
		body = m.waitingView(m.height - 2)
	default:
		inNodes = m.isDrawn(m.nodes)
		views = m.paneViews()
	}
	top := m.statusBar(inNodes)
	// the panes' zones are taken anew when where they fall changed, or a
	// box is drawn over them (it may cover a mark); kept otherwise, as
	// the last frame's are theirs (bubblezone's scan copies the frame
	// once a mark: 0.5 MB and a millisecond a frame at 200x60)
	key := ""
	if views != nil {
		key = m.zonesKey(top, views)
	}
	take := views == nil || len(boxes) > 0 || key != m.zonesAt
	if views != nil {
		body = m.panesView(views, take)
	}
	for i := len(boxes) - 1; i >= 0; i-- {
		body = placeOver(body, boxes[i].View(), m.width)
	}
	frame := top + "\n" + body + "\n" + m.helpLine()
	if !take {
		return frame
	}
	// the zones the panes marked are taken out here, their places kept
	// for the mouse (a frame with no panes, or with a box over them,
	// clears them or may cut them: the next frame takes them anew)
	m.zonesAt = key
	if len(boxes) > 0 {
		m.zonesAt = ""
	}
	m.zoneScans++
	return m.c.zones.Scan(frame)
}

func (m *Model) waitingView(h int) string {
	msg := "connecting…"
	if m.pollErr != nil {
		msg = "cannot reach the servers: " + textgate.Bounded(m.pollErr.Error(), 300) + " (retrying)"
	}
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.c.th.Dim.Render(fit(msg, m.width-2)))
}

// paneViews are the views of the panes arranged for the layout and the
// focus, in m.drawn's order.
func (m *Model) paneViews() []string {
	if m.isDrawn(m.nodes) {
		m.nodes.title, m.nodes.facts = m.targetText(), m.facts()
	}
	views := make([]string, 0, len(m.drawn))
	for _, d := range m.drawn {
		views = append(views, m.panes[d.i].c.View())
	}
	return views
}

// zonesKey says where the panes' zones fall in a frame of the status bar
// top and the panes' views: a zone is the rectangle from its mark's
// start to its end (bubblezone), so it is set by the pane's rect, its
// count of lines and the width of its last, and the lines above the body.
func (m *Model) zonesKey(top string, views []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%dx%d+%d", m.width, m.height, strings.Count(top, "\n"))
	for k, d := range m.drawn {
		v := views[k]
		last := v[strings.LastIndexByte(v, '\n')+1:]
		fmt.Fprintf(&b, " %d@%d,%d,%d,%d:%v,%d,%d", d.i, d.r.x, d.r.y, d.r.w, d.r.h, v == "", strings.Count(v, "\n"), ansi.StringWidth(last))
	}
	return b.String()
}

// panesView lays the panes' views out, each marked as its mouse zone when
// mark is set.
func (m *Model) panesView(views []string, mark bool) string {
	placed := make([]placed, 0, len(views))
	for k, d := range m.drawn {
		v := views[k]
		if mark {
			v = m.c.mark(paneZone(d.i), v)
		}
		placed = append(placed, placed1(v, d.r))
	}
	return compose(placed, m.height-2)
}

// placed is a pane's view cut into lines, at its rect.
type placed struct {
	r     rect
	lines []string
}

func placed1(view string, r rect) placed { return placed{r, strings.Split(view, "\n")} }

// compose lays views out by their rects (which tile the body: the layout
// leaves no gap): each row is the views that cover it, left to right.
func compose(ps []placed, h int) string {
	rows := make([]string, h)
	for y := range rows {
		var b strings.Builder
		size := 0 // the row's bytes at most as the panes' lines hold them, a padding each
		for _, p := range ps {
			if k := y - (p.r.y - 1); k >= 0 && k < p.r.h && k < len(p.lines) {
				size += len(p.lines[k]) + p.r.w
			}
		}
		b.Grow(size)
		x := 0
		for x >= 0 {
			next := -1
			for i, p := range ps {
				r := p.r
				if r.y-1 <= y && y < r.y-1+r.h && r.x == x {
					line := ""
					if k := y - (r.y - 1); k < len(p.lines) {
						line = p.lines[k]
					}
					b.WriteString(fit(line, r.w))
					next = i
					break
				}
			}
			if next < 0 {
				break
			}
			x += ps[next].r.w
		}
		rows[y] = b.String()
	}
	return strings.Join(rows, "\n")
}

// helpLine is the short help of what has the keys (the overlay, or the
// focused pane and the global keys), or the last outcome.
func (m *Model) helpLine() string {
	var keys []key.Binding
	switch o := m.overlay(); {
	case o != nil && m.flash != "": // said while the overlay is open (it clears the flash when it opens)
		return fit(" "+m.flashText()+"  "+m.help.ShortHelpView(o.ShortHelp()), m.width)
	case o != nil:
		keys = o.ShortHelp()
	case m.queues.capturing():
		return fit(" "+m.queues.filter.View()+m.c.th.Dim.Render("  enter: keep · esc: clear"), m.width)
	case m.jobPane() != nil && m.jobPane().capturing():
		return fit(" "+m.jobPane().filter.View()+m.c.th.Dim.Render("  a part of the job id · enter: keep · esc: clear"), m.width)
	case m.flash != "":
		return fit(" "+m.flashText()+m.c.th.Dim.Render("  (esc to dismiss)"), m.width)
	default:
		keys = append(m.focused().ShortHelp(), m.keys.ShortHelp()...)
	}
	return fit(" "+m.shortHelp(keys), m.width)
}

// shortHelp fits keys in the help line: what does not fit goes from the
// end, but ? help and q quit stay last whatever the width (the help key
// fell off the footer at 80 and 120 columns).
func (m *Model) shortHelp(keys []key.Binding) string {
	var rest, tail []key.Binding
	for _, k := range keys {
		if key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")}, k) || key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}, k) {
			tail = append(tail, k)
			continue
		}
		rest = append(rest, k)
	}
	hm := m.help
	hm.Width = 0 // measured here, not cut with an ellipsis
	for {
		v := hm.ShortHelpView(append(rest[:len(rest):len(rest)], tail...))
		if ansi.StringWidth(v) <= m.width-1 || len(rest) == 0 {
			return v
		}
		rest = rest[:len(rest)-1]
	}
}

// placeOver draws fg centred over bg, line by line.
func placeOver(bg, fg string, width int) string {
	bl := strings.Split(bg, "\n")
	fl := strings.Split(fg, "\n")
	fw := 0
	for _, l := range fl {
		fw = max(fw, ansi.StringWidth(l))
	}
	top := max(0, (len(bl)-len(fl))/2)
	left := max(0, (width-fw)/2)
	for i, l := range fl {
		y := top + i
		if y >= len(bl) {
			break
		}
		row := bl[y]
		pre := ansi.Truncate(row, left, "")
		if w := ansi.StringWidth(pre); w < left {
			pre += strings.Repeat(" ", left-w)
		}
		post := ansi.TruncateLeft(row, left+fw, "")
		bl[y] = pre + fit(l, fw) + post
	}
	return strings.Join(bl, "\n")
}

// flashText is the last outcome, in its style.
func (m *Model) flashText() string {
	st := m.c.th.Good
	if m.flashBad {
		st = m.c.th.Warn
	}
	return st.Render(textgate.Text(m.flash))
}

// syncPlan gives the nodes pane the plan's measure (the heatmap's mode)
// and the heatmap the slots a previewed plan moves: both follow from the
// snapshot and the modes, and the plan is made once a snapshot (cached).
func (m *Model) syncPlan() {
	m.nodes.by = m.heat.planBy()
	m.heat.planTo = nil
	if m.nodes.planOn && m.c.fold != nil && m.c.snap != nil {
		m.heat.planTo = m.nodes.current(m.nodes.by).planTo(m.heat.cells())
	}
}
