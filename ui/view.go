package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/model"
)

// View draws the screen.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	l := m.layout()
	if l.tooSmall {
		msg := fmt.Sprintf("terminal too small (need %d×%d, have %d×%d)", minW, minH, m.width, m.height)
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, m.th.Warn.Render(fit(msg, m.width)))
	}
	var body string
	inNodes := false // the connection's facts stand in the nodes pane
	switch {
	case m.showHelp:
		body = m.helpView(m.height - 2)
	case m.detail != nil:
		body = m.detail.view(m.th, m.width, m.height-2)
	case m.fold == nil:
		body = m.waitingView(m.height - 2)
	default:
		body = m.panes(l)
		inNodes = l.nodes.w > 0
	}
	if m.act != nil {
		body = m.overlay(body, m.actionView())
	}
	return m.statusBar(inNodes) + "\n" + body + "\n" + m.helpLine()
}

func (m *Model) waitingView(h int) string {
	msg := "connecting…"
	if m.pollErr != nil {
		msg = "cannot reach the servers: " + safe.Bounded(m.pollErr.Error(), 300) + " (retrying)"
	}
	return lipgloss.Place(m.width, h, lipgloss.Center, lipgloss.Center, m.th.Dim.Render(fit(msg, m.width-2)))
}

// panes joins the panes of the layout.
func (m *Model) panes(l layout) string {
	top := m.heatView(l)
	if l.nodes.w > 0 {
		top = lipgloss.JoinHorizontal(lipgloss.Top, top, m.nodesView(l.nodes))
	}
	parts := []string{top, m.queuesView(l.queues)}
	if l.full {
		parts = append(parts,
			lipgloss.JoinHorizontal(lipgloss.Top, m.pendingView(l.pending), m.activeView(l.active)),
			m.timelineView(l.timeline))
	} else {
		parts = append(parts, m.jobsTabs(l.jobs))
	}
	return lipgloss.JoinVertical(lipgloss.Left, parts...)
}

func (m *Model) border(p pane) lipgloss.Style {
	if m.focus == p && m.act == nil {
		return m.th.BorderFocus
	}
	return m.th.Border
}

// statusBar is one line; its least important parts go first when narrow.
// With inNodes what it is connected to and the facts of the connection
// (fence, server time, the dashboard's own load, the interval) are left to
// the nodes pane, whose title and last row they are.
func (m *Model) statusBar(inNodes bool) string {
	th := m.th
	type part struct {
		s    string
		prio int // lower survives longer
	}
	var parts []part
	add := func(s string, prio int) { parts = append(parts, part{s, prio}) }
	add(th.Title.Render("emqtop"), 0)
	if m.opt.Demo != "" { // never to be taken for production
		add(th.Warn.Render(safe.Text(m.opt.Demo)), 0)
	}
	if m.snap == nil {
		add(safe.Text(m.opt.Target), 1)
	} else {
		s := m.snap
		if !inNodes {
			add(m.targetText(), 3)
		}
		up, total := s.NodesUp()
		ns := fmt.Sprintf("%d/%d primaries", up, total)
		if up < total {
			ns = th.Bad.Render(ns)
		}
		add(ns, 1)
		add(fmt.Sprintf("%s queues", human(int64(len(s.Queues)))), 1)
		p, a, e := s.Totals()
		add(fmt.Sprintf("%s pending", human(p)), 2)
		add(fmt.Sprintf("%s active", human(a)), 2)
		exp := fmt.Sprintf("%s expired", human(e))
		if e > 0 {
			exp = th.Warn.Render(exp)
		}
		add(exp, 0) // what the operator came for: it goes last
	}
	switch {
	case m.opt.ReadOnly && m.paused:
		add(th.ReadOnly.Render("READ-ONLY")+" "+th.Paused.Render("PAUSED"), 0)
	case m.paused:
		add(th.Paused.Render("PAUSED"), 0)
	case m.opt.ReadOnly:
		add(th.ReadOnly.Render("READ-ONLY"), 0)
	default:
		add(th.Live.Render("LIVE"), 0)
	}
	if m.snap != nil {
		age := m.opt.Now().Sub(m.snap.TakenAt)
		as := ago(age) + " old"
		if age > 3*m.interval+2*time.Second {
			as = th.Warn.Render(as)
		}
		add(as, 1)
		if !inNodes {
			for i, f := range m.facts() {
				add(f, 4+i)
			}
		}
	}
	if m.pollErr != nil {
		add(th.Bad.Render("poll failed: "+safe.Bounded(m.pollErr.Error(), 80)), 0)
	}
	sep := th.Dim.Render(" · ")
	for len(parts) > 1 {
		strs := make([]string, len(parts))
		for i, p := range parts {
			strs[i] = p.s
		}
		line := " " + strings.Join(strs, sep)
		if ansi.StringWidth(line) <= m.width {
			return fit(line, m.width)
		}
		worst := 0
		for i, p := range parts {
			if p.prio >= parts[worst].prio {
				worst = i
			}
		}
		parts = append(parts[:worst], parts[worst+1:]...)
	}
	return fit(" "+parts[0].s, m.width)
}

// targetText names what the dashboard is connected to.
func (m *Model) targetText() string {
	kind := "standalone"
	if m.snap.Cluster {
		kind = "cluster"
	}
	return kind + " " + safe.Bounded(m.opt.Target, 40)
}

// facts are the connection's particulars, most wanted first: the version
// fence, the server's clock, the dashboard's own load, the interval.
func (m *Model) facts() []string {
	fence := m.snap.Version
	if fence == "" {
		fence = "unset"
	}
	return []string{
		"fence " + safe.Bounded(fence, 20),
		"server " + time.UnixMilli(m.snap.ServerTimeMs).UTC().Format("15:04:05Z"),
		fmt.Sprintf("self %s scripts/s", human(int64(m.scriptsPerSec()))),
		fmt.Sprintf("every %v", m.interval),
	}
}

// scriptsPerSec is the dashboard's own load on the cluster.
func (m *Model) scriptsPerSec() float64 {
	if m.snap == nil || m.prevSnap == nil {
		return 0
	}
	d := m.snap.TakenAt.Sub(m.prevSnap.TakenAt).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(m.snap.Poll.Scripts) / d
}

// helpLine is the short help, or the filter being typed, or the last
// action's outcome.
func (m *Model) helpLine() string {
	switch {
	case m.detail != nil:
		return fit(" "+m.help.ShortHelpView(m.keys.DetailHelp(m.detail.requeueable())), m.width)
	case m.showHelp:
		return fit(" "+m.th.Dim.Render("any key: back to the dashboard · q quit"), m.width)
	case m.act != nil:
		return fit(" "+m.th.Dim.Render("the dialog above says its keys · ctrl+c quits"), m.width)
	case m.filtering:
		return fit(" "+m.filter.View()+m.th.Dim.Render("  enter: keep · esc: clear"), m.width)
	case m.flash != "":
		st := m.th.Good
		if m.flashBad {
			st = m.th.Warn
		}
		return fit(" "+st.Render(safe.Text(m.flash))+m.th.Dim.Render("  (esc to dismiss)"), m.width)
	}
	return fit(" "+m.help.ShortHelpView(m.keys.ShortHelp()), m.width)
}

func (m *Model) helpView(h int) string {
	hm := m.help
	hm.ShowAll = true
	lines := []string{"", "  " + m.th.Title.Render("Keys"), ""}
	for _, l := range strings.Split(hm.FullHelpView(m.keys.FullHelp()), "\n") {
		lines = append(lines, "  "+l)
	}
	lines = append(lines, "")
	if !m.actionsOn() {
		why := "--read-only is set"
		if m.opt.Actions == nil {
			why = "no write access was configured"
		}
		lines = append(lines, "  "+m.th.ReadOnly.Render("read-only")+m.th.Dim.Render(": r, R and D are off because "+why+"."))
	} else {
		lines = append(lines, "  "+m.th.Dim.Render("r requeues only if the job's attempts still equal what you saw (the fence); D asks you to type the queue's name."))
	}
	lines = append(lines, "",
		"  "+m.th.Dim.Render("Heatmap: hue = the node that owns the slots, brightness = pending+active (log scale),"),
		"  "+m.th.Dim.Render("red = expired leases there, grey = no node covers the slots. Focus it with tab and move the cursor."),
		"", "  "+m.th.Dim.Render("any key closes this help"))
	return box(m.th.BorderFocus, "Help", lines, m.width, h)
}

// overlay puts a dialog over the middle of body.
func (m *Model) overlay(body, dialog string) string {
	return placeOver(body, dialog, m.width)
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

// queueLabel is a queue's name for the screen.
func queueLabel(q *model.Queue, w int) string { return fit(safe.Text(q.Name), w) }
