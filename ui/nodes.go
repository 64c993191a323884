package ui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
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
	c      *common
	w, h   int
	title  string
	facts  []string
	shares bool   // the spread: each node's share of the cluster, not its counts
	planOn bool   // with shares: a rebalancing plan previewed (b)
	by     string // the plan's measure: the heatmap's mode (set by the root)
	plan   planCache
	// the columns that fit this width, and the node names' width: set by
	// columns at each drawing
	cols  []nodeCol
	nameW int
}

// nodeCol is a column of a primary's row: a number is never cut, so a
// column that does not fit is dropped whole, the least wanted first.
type nodeCol struct {
	head string
	w    int
	drop int // the order columns go in when narrow: 1 first; 0 never
	cell func(n model.NodeStatus) string
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
		p1, _, _ := s.Totals()
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
	return box(th.Border, title, lines, p.w, p.h)
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

// spread is the cluster's totals over the primaries that answered, for
// each node's share.
type spread struct {
	s             *model.Snapshot
	primaries     int
	slots, queues int64
	jobs, expired int64
}

// imbalance is how far past its share a node must be to be marked.
const imbalance = 1.5

func spreadOf(s *model.Snapshot) spread {
	sp := spread{s: s}
	for _, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		sp.primaries++
		sp.slots += int64(n.SlotCount())
		sp.queues += int64(n.Queues)
		sp.jobs += n.Pending + n.Active
		sp.expired += n.Expired
	}
	return sp
}

// ratios are node i's share of the slots against a fair share (one
// primary's), and its share of the jobs against its share of the slots.
func (sp spread) ratios(i int) (slots, jobs float64) {
	n := &sp.s.Nodes[i]
	if sp.primaries == 0 || sp.slots == 0 {
		return 0, 0
	}
	slotShare := float64(n.SlotCount()) / float64(sp.slots)
	slots = slotShare * float64(sp.primaries)
	if sp.jobs >= 100 && slotShare > 0 { // a handful of jobs proves nothing
		jobs = float64(n.Pending+n.Active) / float64(sp.jobs) / slotShare
	}
	return slots, jobs
}

func (sp spread) heavy(i int) bool {
	s, j := sp.ratios(i)
	return sp.primaries > 1 && (s >= imbalance || j >= imbalance)
}

// words says in numbers how node i is out of balance, "" when it is not.
func (sp spread) words(i int, name string) string {
	if !sp.heavy(i) {
		return ""
	}
	n := &sp.s.Nodes[i]
	s, j := sp.ratios(i)
	slotPct := 100 * float64(n.SlotCount()) / float64(sp.slots)
	if j >= imbalance {
		return fmt.Sprintf("%s has %.0f%% of jobs on %.0f%% of slots (%.1f×)", name,
			100*float64(n.Pending+n.Active)/float64(sp.jobs), slotPct, j)
	}
	return fmt.Sprintf("%s owns %.0f%% of slots: %.1f× a fair share", name, slotPct, s)
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

// columns are the primary rows' columns that fit in w cells beside the
// node names (whole: "[1] :22611" with no colour) and the marks.
func (p *nodesPane) columns(w int, common string, sp spread) []nodeCol {
	th, s := p.c.th, p.c.snap
	marks := 0
	p.nameW = 4
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		dot := 1
		if th.Glyphs {
			dot = len(fmt.Sprintf("[%d]", i+1))
		}
		p.nameW = max(p.nameW, dot+1+ansi.StringWidth(shortAddr(n.Addr, common)))
		m := 0
		if sp.heavy(i) {
			m += 2
		}
		if len(n.Migrating) > 0 {
			m += 2 + len(fmt.Sprint(len(n.Migrating)))
		}
		marks = max(marks, m)
	}
	num := func(w int, v func(model.NodeStatus) int64, warn func(model.NodeStatus) bool) func(model.NodeStatus) string {
		return func(n model.NodeStatus) string {
			c := fitLeft(human(v(n)), w)
			if warn != nil && warn(n) {
				c = th.Warn.Render(c)
			}
			return c
		}
	}
	share := func(w int, v func(model.NodeStatus) int64, of int64, warn func(model.NodeStatus) bool) func(model.NodeStatus) string {
		return func(n model.NodeStatus) string {
			c := "–"
			if of > 0 {
				c = fmt.Sprintf("%.0f%%", 100*float64(v(n))/float64(of))
			}
			c = fitLeft(c, w)
			if warn != nil && warn(n) {
				c = th.Warn.Render(c)
			}
			return c
		}
	}
	slots := func(n model.NodeStatus) int64 { return int64(n.SlotCount()) }
	queues := func(n model.NodeStatus) int64 { return int64(n.Queues) }
	jobs := func(n model.NodeStatus) int64 { return n.Pending + n.Active }
	expired := func(n model.NodeStatus) int64 { return n.Expired }
	hasExpired := func(n model.NodeStatus) bool { return n.Expired > 0 }
	var cols []nodeCol
	if p.shares {
		cols = []nodeCol{
			{"SLOTS", 5, 2, share(5, slots, sp.slots, nil)},
			{"QUEUES", 6, 1, share(6, queues, sp.queues, nil)},
			{"JOBS", 5, 0, share(5, jobs, sp.jobs, nil)},
			{"EXPIRED", 7, 0, share(7, expired, sp.expired, hasExpired)},
		}
		// the servers' own load (SLOT-STATS), where they gave it
		if l := s.Load; l != nil {
			var keysAll, cpuAll int64
			for _, st := range l.Nodes {
				keysAll += st.Keys
				cpuAll += int64(st.CPU)
			}
			srvKeys := func(n model.NodeStatus) int64 { return l.Nodes[n.Addr].Keys }
			srvCPU := func(n model.NodeStatus) int64 { return int64(l.Nodes[n.Addr].CPU) }
			if l.Keys != nil {
				cols = append(cols, nodeCol{"KEYS", 5, 3, share(5, srvKeys, keysAll, nil)})
			}
			if l.CPU != nil {
				cols = append(cols, nodeCol{"CPU", 5, 4, share(5, srvCPU, cpuAll, nil)})
			}
		}
	} else {
		budget := s.Poll.Budget
		cols = []nodeCol{
			{"SLOTS", 5, 3, func(n model.NodeStatus) string { return fitLeft(fmt.Sprint(n.SlotCount()), 5) }},
			{"QUEUES", 6, 4, num(6, queues, nil)},
			{"JOBS", 6, 0, num(6, jobs, nil)},
			{"EXPIRED", 7, 0, num(7, expired, hasExpired)},
			{"LOAD", 6, 2, func(n model.NodeStatus) string {
				c := fitLeft(pct(n.Load), 6)
				if budget > 0 && n.Load > budget {
					c = th.Warn.Render(c)
				}
				return c
			}},
			{"RTT", 6, 1, func(n model.NodeStatus) string {
				return th.Dim.Render(fitLeft(roundTrip(n.Latency), 6))
			}},
		}
	}
	width := func() int {
		t := p.nameW + marks
		for _, c := range cols {
			t += 1 + c.w
		}
		return t
	}
	for next := 1; width() > w; next++ {
		kept := cols[:0:0]
		dropped := false
		for _, c := range cols {
			if c.drop == next {
				dropped = true
				continue
			}
			kept = append(kept, c)
		}
		cols = kept
		if !dropped && next > len(cols)+6 {
			break // only the columns that never go are left
		}
	}
	return cols
}

// roundTrip words a round trip: 400µs, 1.2ms, 35ms, 2s.
func roundTrip(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Round(10*time.Microsecond).Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d.Round(100*time.Microsecond))/1e6)
	}
	return every(d.Round(time.Millisecond))
}

// hotSlot names the slot that costs its node the most CPU (or, without
// CPU, holds the most keys), with its share of that node and its queues:
// "slot 105 · 38% of :7001's CPU · orders, fills".
func (p *nodesPane) hotSlot(common string) string {
	s := p.c.snap
	l := s.Load
	if l == nil || (l.Keys == nil && l.CPU == nil) || p.c.fold == nil {
		return ""
	}
	best, what := -1, "CPU"
	val := func(i int) float64 { return l.CPU[i] }
	if l.CPU == nil {
		what, val = "keys", func(i int) float64 { return float64(l.Keys[i]) }
	}
	for i := range 16384 {
		if best < 0 || val(i) > val(best) {
			best = i
		}
	}
	owner := s.Topology.OwnerOf(uint16(best))
	if owner == nil || val(best) <= 0 {
		return ""
	}
	st := l.Nodes[owner.Addr]
	of := st.CPU
	if what == "keys" {
		of = float64(st.Keys)
	}
	line := fmt.Sprintf("hottest: slot %d", best)
	if of > 0 {
		line += fmt.Sprintf(" · %.0f%% of %s's %s", 100*val(best)/of, shortAddr(owner.Addr, common), what)
	}
	var names []string
	for _, q := range p.c.fold.QueuesIn(uint16(best), uint16(best)) {
		if len(names) == 3 {
			names = append(names, "…")
			break
		}
		names = append(names, textgate.Bounded(q.Name, 20))
	}
	if len(names) > 0 {
		line += " · " + strings.Join(names, ", ")
	} else {
		line += " · no queue: other keys"
	}
	return p.c.th.Warn.Render(line)
}
