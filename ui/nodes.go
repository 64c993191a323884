package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// nodesPane lists every primary with its replicas, the failed nodes, the
// foreign keys and notes; its title names the connection and its last row
// the connection's facts (the root's: fence, clock, own load, interval).
type nodesPane struct {
	c     *common
	w, h  int
	title string
	facts []string
}

func (p *nodesPane) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *nodesPane) Update(tea.Msg) tea.Cmd    { return nil }
func (p *nodesPane) ShortHelp() []key.Binding  { return nil }
func (p *nodesPane) FullHelp() [][]key.Binding { return nil }

func (p *nodesPane) View() string {
	th := p.c.th
	s := p.c.snap
	if s == nil {
		return box(th.Border, "Nodes", nil, p.w, p.h)
	}
	common := commonHost(s)
	in := p.w - 2
	var lines []string
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		lines = append(lines, p.primary(i, n, common, in))
		for _, ri := range s.Topology.ReplicasOf(n.ID) {
			rn := s.Nodes[ri]
			st := rn.Health
			if rn.Err != "" {
				st = th.Bad.Render(textgate.Bounded(rn.Err, 40))
			} else if st == "online" {
				st = th.Good.Render("ok")
			}
			lines = append(lines, fmt.Sprintf("  └ %-7s replica %s", shortAddr(rn.Addr, common), textgate.Text(st)))
		}
	}
	for _, n := range s.Nodes {
		if n.Role == model.RoleFailed {
			lines = append(lines, fmt.Sprintf("%s %-7s %s", th.Bad.Render("✗"), shortAddr(n.Addr, common),
				th.Bad.Render("failed: owns no slot (its replica took over)")))
		}
	}
	if len(s.TotalSpark) > 0 {
		p1, _, _ := s.Totals()
		lines = append(lines, fmt.Sprintf("all queues %s %s pending · %s", sparkline(th, s.TotalSpark), human(p1),
			th.Dim.Render(trendShort(s.TotalTrend))))
	}
	if s.ForeignCount > 0 {
		lines = append(lines, th.Warn.Render(fmt.Sprintf("%d foreign keys (EchoMQ-like, outside the grammar)", s.ForeignCount)))
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
	return box(th.Border, "Nodes · "+p.title, lines, p.w, p.h)
}

func (p *nodesPane) primary(i int, n model.NodeStatus, common string, in int) string {
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
	ranges := ""
	if in >= 58 { // narrow: the ranges go (the heatmap shows them), the latency stays
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
		ranges = fmt.Sprintf("%-11s ", ranges)
	}
	exp := fmt.Sprintf("%d✗", n.Expired)
	if n.Expired > 0 {
		exp = th.Warn.Render(exp)
	}
	line := fmt.Sprintf("%s %-6s %s%4dsl %3dq %4sp %3sa %s", dot, shortAddr(n.Addr, common), ranges,
		n.SlotCount(), n.Queues, human(n.Pending), human(n.Active), exp)
	line += th.Dim.Render(fmt.Sprintf(" %s", n.Latency.Round(100*time.Microsecond)))
	if len(n.Migrating) > 0 {
		line += th.Warn.Render(fmt.Sprintf(" ⇄%d", len(n.Migrating)))
	}
	return line
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
