package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// cellsPerChar is how many heatmap cells one character shows: two with
// half blocks in colour, one glyph otherwise.
func (m *Model) cellsPerChar() int {
	if m.th.Glyphs {
		return 1
	}
	return 2
}

func (m *Model) heatCells(l layout) int {
	return max(1, min(keyspace.SlotCount, l.mapW*l.mapRows*m.cellsPerChar()))
}

// heatKey moves the heatmap cursor; enter selects the busiest queue under it.
func (m *Model) heatKey(msg tea.KeyMsg) tea.Cmd {
	l := m.layout()
	n := m.heatCells(l)
	if m.heatCursor < 0 {
		m.heatCursor = 0
		if q := m.selected(); q != nil {
			m.heatCursor = int(q.Slot)
		}
	}
	c := model.CellOf(uint16(m.heatCursor), n)
	k := m.keys
	switch {
	case key.Matches(msg, k.Left):
		c--
	case key.Matches(msg, k.Right):
		c++
	case key.Matches(msg, k.Up):
		c -= l.mapW
	case key.Matches(msg, k.Down):
		c += l.mapW
	case key.Matches(msg, k.Top):
		c = 0
	case key.Matches(msg, k.Bottom):
		c = n - 1
	case key.Matches(msg, k.Enter):
		lo, hi := model.CellRange(c, n)
		qs := m.fold.QueuesIn(lo, hi)
		if len(qs) == 0 {
			m.flash, m.flashBad = fmt.Sprintf("no queue in slots %d–%d", lo, hi), false
			return nil
		}
		m.filter.SetValue("")
		m.selName = qs[0].Name
		m.refreshView()
		m.focus = paneQueues
		m.setEnabled()
		m.selName = "" // force the detail request
		return m.selectionChanged()
	default:
		return nil
	}
	c = max(0, min(c, n-1))
	lo, _ := model.CellRange(c, n)
	m.heatCursor = int(lo)
	return nil
}

// heatView draws the slot heatmap, its legend and the inspector line.
func (m *Model) heatView(l layout) string {
	th := m.th
	r := l.heat
	n := m.heatCells(l)
	cells := m.heatmap(n)
	cursor := -1
	if m.focus == paneHeat && m.heatCursor >= 0 {
		cursor = model.CellOf(uint16(m.heatCursor), n)
	}
	sel := -1
	if q := m.selected(); q != nil {
		sel = model.CellOf(q.Slot, n)
	}
	var lines []string
	if th.Glyphs {
		lines = m.heatGlyphs(cells, l, cursor, sel)
	} else {
		lines = m.heatBlocks(cells, l, cursor, sel)
	}
	lines = append(lines, m.legend(r.w-2, l.nodes.w > 0), m.inspector(cells, cursor, sel, n))
	title := "Slots 0–16383"
	if m.focus == paneHeat {
		title += " · ←↑↓→ move · enter select"
	}
	return box(m.border(paneHeat), title, lines, r.w, r.h)
}

// heatGlyphs: one cell per character; load as shade, marks as letters.
func (m *Model) heatGlyphs(cells []model.HeatCell, l layout, cursor, sel int) []string {
	shade := []rune{'·', '░', '▒', '▓', '█'}
	lines := make([]string, l.mapRows)
	for row := 0; row < l.mapRows; row++ {
		var b strings.Builder
		for col := 0; col < l.mapW; col++ {
			i := row*l.mapW + col
			if i >= len(cells) {
				b.WriteByte(' ')
				continue
			}
			c := cells[i]
			ch := shade[c.Level]
			switch {
			case i == cursor:
				ch = '@'
			case i == sel:
				ch = '◆'
			case c.Expired > 0:
				ch = '!'
			case c.Owner < 0:
				ch = '×'
			}
			b.WriteRune(ch)
		}
		lines[row] = b.String()
	}
	return lines
}

// heatBlocks: two cells per character with '▀': the upper cell in the
// foreground, the lower in the background. Colour sequences are written
// directly, one per change, which keeps a frame cheap.
func (m *Model) heatBlocks(cells []model.HeatCell, l layout, cursor, sel int) []string {
	th := m.th
	prof := th.Renderer.ColorProfile()
	seq := map[lipgloss.Color][2]string{}
	col := func(c lipgloss.Color) [2]string {
		s, ok := seq[c]
		if !ok {
			pc := prof.Color(string(c))
			if pc == nil {
				s = [2]string{"39", "49"}
			} else {
				s = [2]string{pc.Sequence(false), pc.Sequence(true)}
			}
			seq[c] = s
		}
		return s
	}
	colorOf := func(i int) lipgloss.Color {
		if i >= len(cells) {
			return th.Empty
		}
		c := cells[i]
		switch {
		case i == cursor:
			return "226"
		case i == sel:
			return th.Mark
		case c.Expired > 0:
			return th.Expired
		case c.Owner < 0:
			return th.Uncovered
		}
		return th.NodeColor(int(c.Owner), c.Level)
	}
	lines := make([]string, l.mapRows)
	for row := 0; row < l.mapRows; row++ {
		var b strings.Builder
		last := ""
		for x := 0; x < l.mapW; x++ {
			up := colorOf((2*row)*l.mapW + x)
			down := colorOf((2*row+1)*l.mapW + x)
			s := "\x1b[" + col(up)[0] + ";" + col(down)[1] + "m"
			if s != last {
				b.WriteString(s)
				last = s
			}
			b.WriteString("▀")
		}
		b.WriteString("\x1b[0m")
		lines[row] = b.String()
	}
	return lines
}

// legend names each primary's colour, then the marks.
// legend maps hues to nodes, with each node's slots and queues. When the
// nodes pane is on screen (it says them too) and they do not fit in w, the
// hues alone; without it the counts stay and the marks' key is cut.
func (m *Model) legend(w int, nodesPane bool) string {
	if full := m.legendOf(true); !nodesPane || ansi.StringWidth(full) <= w {
		return full
	}
	return m.legendOf(false)
}

func (m *Model) legendOf(counts bool) string {
	th := m.th
	s := m.snap
	common := commonHost(s)
	var parts []string
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		sw := "■"
		if th.Glyphs {
			sw = fmt.Sprintf("[%d]", i+1)
		} else {
			sw = th.Renderer.NewStyle().Foreground(th.NodeColor(i, 4)).Render("■")
		}
		if counts {
			parts = append(parts, fmt.Sprintf("%s %s %d sl %d q", sw, shortAddr(n.Addr, common), n.SlotCount(), n.Queues))
		} else {
			parts = append(parts, sw+" "+shortAddr(n.Addr, common))
		}
	}
	if th.Glyphs {
		parts = append(parts, "! expired", "× uncovered", "◆ selected")
	} else {
		parts = append(parts, th.Renderer.NewStyle().Foreground(th.Expired).Render("■")+" expired",
			th.Renderer.NewStyle().Foreground(th.Uncovered).Render("■")+" uncovered")
	}
	return " " + strings.Join(parts, "  ")
}

// inspector names the slot range under the cursor (or the selected
// queue's), its node and the queues in it with their counts.
func (m *Model) inspector(cells []model.HeatCell, cursor, sel, n int) string {
	i := cursor
	if i < 0 {
		i = sel
	}
	if i < 0 || i >= len(cells) {
		return m.th.Dim.Render(" tab to the heatmap to inspect slots")
	}
	c := cells[i]
	node := "no node"
	if c.Owner >= 0 {
		node = shortAddr(m.snap.Nodes[c.Owner].Addr, commonHost(m.snap))
	}
	rng := model.Range{Lo: c.Lo, Hi: c.Hi}
	parts := []string{"slots " + rng.String(), node}
	if c.Uncovered > 0 {
		parts = append(parts, m.th.Warn.Render(fmt.Sprintf("%d uncovered", c.Uncovered)))
	}
	qs := m.fold.QueuesIn(c.Lo, c.Hi)
	for k, q := range qs {
		if k == 4 {
			parts = append(parts, fmt.Sprintf("+%d more", len(qs)-4))
			break
		}
		s := fmt.Sprintf("%s %dp %da", safe.Bounded(q.Name, 24), q.Pending, q.Active)
		if q.Expired > 0 {
			s += m.th.Warn.Render(fmt.Sprintf(" %d✗", q.Expired))
		}
		parts = append(parts, s)
	}
	if len(qs) == 0 {
		parts = append(parts, m.th.Dim.Render("no queues"))
	}
	return " " + strings.Join(parts, m.th.Dim.Render(" · "))
}

// commonHost is the host every node shares, or "".
func commonHost(s *model.Snapshot) string {
	host := ""
	for i, n := range s.Nodes {
		h := n.Addr[:max(0, strings.LastIndexByte(n.Addr, ':'))]
		if i == 0 {
			host = h
		} else if h != host {
			return ""
		}
	}
	return host
}

// nodesView lists every primary with its replicas.
func (m *Model) nodesView(r rect) string {
	th := m.th
	s := m.snap
	common := commonHost(s)
	in := r.w - 2
	var lines []string
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		dot := th.Renderer.NewStyle().Foreground(th.NodeColor(i, 4)).Render("●")
		if th.Glyphs {
			dot = fmt.Sprintf("[%d]", i+1)
		}
		ranges := ""
		for k, rg := range n.Slots {
			if k == 2 {
				ranges += fmt.Sprintf(",+%d", len(n.Slots)-2)
				break
			}
			if k > 0 {
				ranges += ","
			}
			ranges += rg.String()
		}
		exp := fmt.Sprintf("%d✗", n.Expired)
		if n.Expired > 0 {
			exp = th.Warn.Render(exp)
		}
		if in >= 58 { // narrow: the ranges go (the heatmap shows them), the latency stays
			ranges = fmt.Sprintf("%-11s ", ranges)
		} else {
			ranges = ""
		}
		line := fmt.Sprintf("%s %-6s %s%4dsl %3dq %4sp %3sa %s", dot, shortAddr(n.Addr, common), ranges,
			n.SlotCount(), n.Queues, human(n.Pending), human(n.Active), exp)
		if n.Err != "" {
			line = fmt.Sprintf("%s %-7s %s", th.Bad.Render("✗"), shortAddr(n.Addr, common),
				th.Bad.Render(safe.Bounded(n.Err, 60)))
			if !n.LastGood.IsZero() {
				line += th.Dim.Render(fmt.Sprintf(" · data %s old", ago(m.opt.Now().Sub(n.LastGood))))
			}
		} else {
			line += th.Dim.Render(fmt.Sprintf(" %s", n.Latency.Round(100*time.Microsecond)))
		}
		if len(n.Migrating) > 0 {
			line += th.Warn.Render(fmt.Sprintf(" ⇄%d", len(n.Migrating)))
		}
		lines = append(lines, line)
		for _, ri := range s.Topology.ReplicasOf(n.ID) {
			rn := s.Nodes[ri]
			st := rn.Health
			if rn.Err != "" {
				st = th.Bad.Render(safe.Bounded(rn.Err, 40))
			} else if st == "online" {
				st = th.Good.Render("ok")
			}
			lines = append(lines, fmt.Sprintf("  └ %-7s replica %s", shortAddr(rn.Addr, common), st))
		}
	}
	for _, n := range s.Nodes {
		if n.Role == model.RoleFailed {
			lines = append(lines, fmt.Sprintf("%s %-7s %s", th.Bad.Render("✗"), shortAddr(n.Addr, common),
				th.Bad.Render("failed: owns no slot (its replica took over)")))
		}
	}
	if s.ForeignCount > 0 {
		lines = append(lines, th.Warn.Render(fmt.Sprintf("%d foreign keys (EchoMQ-like, outside the grammar)", s.ForeignCount)))
	}
	for _, note := range s.Notes {
		lines = append(lines, th.Dim.Render(safe.Text(note)))
	}
	// the last row: the connection's particulars, which the status bar
	// leaves to this pane
	rows := max(1, r.h-2)
	lines = lines[:min(len(lines), rows-1)]
	for len(lines) < rows-1 {
		lines = append(lines, "")
	}
	lines = append(lines, th.Dim.Render(strings.Join(m.facts(), " · ")))
	for i := range lines {
		lines[i] = fit(lines[i], in)
	}
	return box(m.th.Border, "Nodes · "+m.targetText(), lines, r.w, r.h)
}
