package ui

import (
	"fmt"
	"sort"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// planCache is the previewed plan of one snapshot and measure.
type planCache struct {
	snap *model.Snapshot
	by   string
	plan model.Plan
	err  error
	idx  map[string]int // node address → its index in Snap.Nodes (its hue)
}

// current plans again when the snapshot or the measure changed: a plan is
// a pure function of them (model.Rebalance), nothing is sent.
func (p *nodesPane) current(by string) *planCache {
	s := p.c.snap
	pc := &p.plan
	if pc.snap == s && pc.by == by {
		return pc
	}
	*pc = planCache{snap: s, by: by, idx: map[string]int{}}
	load, err := model.PlanLoad(p.c.fold, by)
	if err != nil {
		pc.err = err
		return pc
	}
	for k, ns := range s.Nodes {
		pc.idx[ns.Addr] = k
	}
	pc.plan = model.RebalanceSnapshot(s, load, by, 64, 0.1)
	return pc
}

// planTo maps the heatmap's cells (n of them) to the node a previewed plan
// moves a slot of the cell to, 1 + its index in Snap.Nodes.
func (pc *planCache) planTo(n int) map[int]int16 {
	if pc == nil || pc.err != nil || len(pc.plan.Moves) == 0 {
		return nil
	}
	out := map[int]int16{}
	for _, m := range pc.plan.Moves {
		out[model.CellOf(m.Slot, n)] = int16(pc.idx[m.To] + 1)
	}
	return out
}

// planView is the nodes pane with a plan previewed: each primary's share
// now and after, the moves, the keys to migrate, and why not.
func (p *nodesPane) planView(common string) string {
	th := p.c.th
	pc := p.current(p.by)
	title := "Plan · by " + pc.by + " · previewed: nothing is sent"
	var lines []string
	if pc.err != nil {
		lines = append(lines, th.Warn.Render(textgate.Text(pc.err.Error())))
		return box(focusBorder(th, p.focused), title, lines, p.w, p.h)
	}
	pl := pc.plan
	addrs := make([]string, 0, len(pl.Before))
	for a := range pl.Before {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	lines = append(lines, th.Header.Render(fmt.Sprintf("%-10s %6s %6s", "NODE", "NOW", "AFTER")))
	for _, a := range addrs {
		dot := th.Renderer.NewStyle().Foreground(th.NodeColor(pc.idx[a], 4)).Render("●")
		if th.Glyphs {
			dot = fmt.Sprintf("[%d]", pc.idx[a]+1)
		}
		lines = append(lines, fmt.Sprintf("%s %-8s %5.0f%% %5.0f%%", dot, shortAddr(a, common), 100*pl.Before[a], 100*pl.After[a]))
	}
	var keys int64
	known := true
	for _, m := range pl.Moves {
		if m.Keys < 0 {
			known = false
		}
		keys += max(0, m.Keys)
	}
	sum := fmt.Sprintf("%s within ±%.0f%%", model.Count(int64(len(pl.Moves)), "move", "moves"), 100*pl.Tolerance)
	if known && len(pl.Moves) > 0 {
		sum += " · " + model.Count(keys, "key", "keys") + " to migrate"
	}
	lines = append(lines, sum)
	if pl.WhyNot != "" {
		lines = append(lines, th.Warn.Render(textgate.Text(pl.WhyNot)))
	}
	for _, m := range pl.Moves {
		lines = append(lines, th.Dim.Render(fmt.Sprintf("slot %d %s → %s", m.Slot, shortAddr(m.From, common), shortAddr(m.To, common))))
	}
	rows := max(1, p.h-2)
	if len(lines) > rows-1 {
		lines = append(lines[:rows-2], th.Dim.Render(fmt.Sprintf("… %d more moves", len(lines)-(rows-2))))
	}
	for len(lines) < rows-1 {
		lines = append(lines, "")
	}
	lines = append(lines, th.Dim.Render("emqtop rebalance prints its commands · b closes"))
	for i := range lines {
		lines[i] = fit(lines[i], p.w-2)
	}
	return box(focusBorder(th, p.focused), title, lines, p.w, p.h)
}
