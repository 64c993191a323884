package ui

import (
	"fmt"
	"strings"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

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
