package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// nodesPane lists every primary with its replicas, the failed nodes, the
// foreign keys and notes; its title names the connection and its last row
// the connection's facts (the root's: fence, clock, own load, interval).
type nodesPane struct {
	c       *common
	w, h    int
	focused bool
	title   string
	facts   []string
	shares  bool   // the spread: each node's share of the cluster, not its counts
	planOn  bool   // with shares: a rebalancing plan previewed (b)
	by      string // the plan's measure: the heatmap's mode (set by the root)
	plan    planCache
	// the columns that fit this width, and the node names' width: set by
	// columns at each drawing
	cols  []nodeCol
	nameW int
}

func (p *nodesPane) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *nodesPane) SetFocus(f bool)           { p.focused = f }
func (p *nodesPane) Update(tea.Msg) tea.Cmd    { return nil }
func (p *nodesPane) ShortHelp() []key.Binding  { return nil }
func (p *nodesPane) FullHelp() [][]key.Binding { return nil }

func (p *nodesPane) View() string {
	th := p.c.th
	s := p.c.snap
	if s == nil {
		return box(focusBorder(th, p.focused), "Nodes", nil, p.w, p.h)
	}
	common := commonHost(s)
	in := p.w - 2
	if p.planOn {
		return p.planView(common)
	}
	sp := spreadOf(s)
	p.cols = p.columns(in, common, sp)
	head := fit("NODE", p.nameW)
	for _, c := range p.cols {
		head += " " + fitLeft(c.head, c.w)
	}
	lines := []string{th.Header.Render(head)}
	var notes []string
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		lines = append(lines, p.primary(i, n, common, sp))
		if w := sp.words(i, shortAddr(n.Addr, common)); w != "" {
			notes = append(notes, th.Warn.Render("⚠ "+w))
		}
		for _, ri := range s.Topology.ReplicasOf(n.ID) {
			rn := s.Nodes[ri]
			// the server's words pass the gate first, then take a style:
			// styled first, the gate escaped the style ("\x1b[38;5;40mok")
			st := textgate.Text(rn.Health)
			if rn.Err != "" {
				st = th.Bad.Render("down: " + downWords(rn.Err))
			} else if rn.Health == "online" {
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
	lines = append(lines, notes...)
	if p.shares {
		if hot := p.hotSlot(common); hot != "" {
			lines = append(lines, hot)
		}
	}
	lines = append(lines, p.readMode(common)...)
	if len(s.TotalSpark) > 0 {
		p1, _, _ := p.c.fold.Totals()
		lines = append(lines, fmt.Sprintf("all queues %s %s pending · %s", sparkline(th, s.TotalSpark), human(p1),
			th.Dim.Render(trendShort(s.TotalTrend))))
	}
	if s.ForeignCount > 0 {
		lines = append(lines, th.Warn.Render(model.Count(int64(s.ForeignCount), "foreign key", "foreign keys")+" (EchoMQ-like, outside the grammar)"))
	}
	for _, note := range s.Notes {
		lines = append(lines, th.Dim.Render(textgate.Text(note)))
	}
	rows := max(1, p.h-2)
	lines = lines[:min(len(lines), rows-1)]
	for len(lines) < rows-1 {
		lines = append(lines, "")
	}
	lines = append(lines, th.Dim.Render(strings.Join(p.facts, " · ")))
	for i := range lines {
		lines[i] = fit(lines[i], in)
	}
	title := "Nodes · " + p.title
	if p.shares {
		title = "Spread · " + p.title
	}
	return box(focusBorder(th, p.focused), title, lines, p.w, p.h)
}

// primary is a primary's row: its counts, or with shares its share of the
// cluster's slots, queues, jobs and expired leases, and a mark where it
// holds far more than its share.
func (p *nodesPane) primary(i int, n model.NodeStatus, common string, sp spread) string {
	th := p.c.th
	dot := th.Renderer.NewStyle().Foreground(th.NodeColor(i, 4)).Render("●")
	if th.Glyphs {
		dot = fmt.Sprintf("[%d]", i+1)
	}
	if n.Err != "" {
		// the state in words first, so a cut takes the raw error, never them
		st := "down: " + downWords(n.Err)
		if !n.LastGood.IsZero() {
			st += ", " + ago(p.c.now().Sub(n.LastGood))
		}
		return fmt.Sprintf("%s %-6s %s", th.Bad.Render("✗"), shortAddr(n.Addr, common), th.Bad.Render(st)) +
			th.Dim.Render(" · "+textgate.Text(n.Err))
	}
	line := fit(dot+" "+shortAddr(n.Addr, common), p.nameW)
	for _, c := range p.cols {
		line += " " + c.cell(n)
	}
	if sp.heavy(i) {
		line += th.Warn.Render(" ⚠")
	}
	if len(n.Migrating) > 0 {
		line += th.Warn.Render(fmt.Sprintf(" ⇄%d", len(n.Migrating)))
	}
	return line
}

// readMode says how the poller reads: the changes only (every primary
// tracked), or which primaries it reads in full and why; with the sweep and
// the budget.
func (p *nodesPane) readMode(common string) []string {
	th, s := p.c.th, p.c.snap
	if s.Poll.Read == "" {
		return nil // not a snapshot of this poller's (nothing to say)
	}
	var order []string
	full := map[string][]string{}
	primaries := 0
	for _, n := range s.Nodes {
		if n.Role != model.RolePrimary || n.Err != "" {
			continue
		}
		primaries++
		if n.Full == "" {
			continue
		}
		if _, ok := full[n.Full]; !ok {
			order = append(order, n.Full)
		}
		full[n.Full] = append(full[n.Full], shortAddr(n.Addr, common))
	}
	budget := ""
	if s.Poll.Budget > 0 {
		budget = " · budget " + pct(s.Poll.Budget) + "/node"
	}
	if len(order) == 0 {
		if primaries == 0 {
			return nil
		}
		return []string{th.Dim.Render(fmt.Sprintf("reads changes · sweep %s%s", every(s.Poll.SweepEvery), budget))}
	}
	var out []string
	for _, why := range order {
		who := strings.Join(full[why], " ")
		if len(full[why]) == primaries {
			who = "every node"
		}
		out = append(out, th.Dim.Render("reads "+who+" in full: "+textgate.Text(why)))
	}
	return out
}

// downWords says in plain words why a node did not answer, from the
// error the poll met; an error it does not know is shown, bounded.
func downWords(err string) string {
	e := strings.ToLower(err)
	if strings.HasPrefix(e, "no answer within ") { // the poller's own words
		w, _, _ := strings.Cut(err, ",")
		return textgate.Bounded(w, 40)
	}
	for _, w := range [...][2]string{
		{"connection refused", "connection refused"},
		{"no route to host", "no route to host"},
		{"no such host", "unknown host"},
		{"i/o timeout", "no answer in time"},
		{"deadline exceeded", "no answer in time"},
		{"no answer", "no answer in time"},
		{"connection reset", "connection lost"},
		{"broken pipe", "connection lost"},
		{"eof", "connection lost"},
		{"loading", "loading its data"},
		{"noauth", "refused our credentials"},
		{"wrongpass", "refused our credentials"},
		{"noperm", "no permission"},
		{"clusterdown", "cluster down"},
	} {
		if strings.Contains(e, w[0]) {
			return w[1]
		}
	}
	return textgate.Bounded(err, 40)
}

// trendShort is a trend in a few words: "growing +3.1/s net".
func trendShort(t model.Trend) string {
	if !t.NetOK {
		return "trend: gathering"
	}
	return fmt.Sprintf("%s %+.1f/s net", t.Direction, t.PendingNet)
}
