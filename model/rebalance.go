package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/echomq/emqtop/keyspace"
)

// The loads a rebalancing plan can even out.
const (
	ByJobs    = "jobs"    // pending + active of the queues in each slot
	ByQueues  = "queues"  // how many queues each slot holds
	ByExpired = "expired" // expired leases
	ByKeys    = "keys"    // every key of the slot (CLUSTER SLOT-STATS)
	ByCPU     = "cpu"     // server CPU a second spent on the slot (SLOT-STATS with its stats on)
)

// PlanBys are the loads, in the order they are offered.
var PlanBys = []string{ByJobs, ByQueues, ByExpired, ByKeys, ByCPU}

// Move is one slot to move from a primary to another.
type Move struct {
	Slot     uint16
	From, To string  // addresses
	Keys     int64   // keys to migrate (-1: not known)
	Load     float64 // the slot's load, in the plan's measure
}

// Plan is a rebalancing plan: the fewest slot moves found that bring every
// primary within Tolerance of the mean share of the load, or as close as
// slots allow, with the shares before and after and, when it cannot be
// done, why in words.
type Plan struct {
	By            string
	Tolerance     float64 // ±, of the mean share: 0.1
	Moves         []Move
	Before, After map[string]float64 // each primary's share of the load, 0–1
	Total         float64
	WhyNot        string // "" when the plan reaches the bound
	// HotSlot is the slot the WhyNot is about, -1 when none.
	HotSlot int
}

// PlanNode is a primary the plan may move slots from and, when Target, to.
type PlanNode struct {
	Addr   string
	Target bool // up and not failing: slots may be moved to it
}

// Rebalance plans slot moves for load, a value per slot (16384), where
// owner[s] is the index in nodes of the primary owning slot s (-1: none)
// and keys[s] the keys a move of it migrates (nil: unknown). Greedy: each
// move takes, from the most loaded primary to the least loaded target, the
// slot that brings the two closest, preferring slots with fewer keys; each
// move lowers the larger of the two, so no primary ends above the worst
// one's start. It stops within tolerance, at maxMoves (0: 64), or when no
// slot can help.
func Rebalance(by string, load []float64, keys []int64, owner []int16, nodes []PlanNode, maxMoves int, tolerance float64) Plan {
	if maxMoves <= 0 {
		maxMoves = 64
	}
	p := Plan{By: by, Tolerance: tolerance, Before: map[string]float64{}, After: map[string]float64{}, HotSlot: -1}
	sums := make([]float64, len(nodes))
	own := slices.Clone(owner)
	for s, o := range own {
		if o >= 0 && int(o) < len(nodes) && s < len(load) {
			sums[o] += load[s]
			p.Total += load[s]
		}
	}
	share := func(m map[string]float64) {
		for i, n := range nodes {
			if p.Total > 0 {
				m[n.Addr] = sums[i] / p.Total
			} else {
				m[n.Addr] = 0
			}
		}
	}
	share(p.Before)
	defer share(p.After)
	targets := 0
	for _, n := range nodes {
		if n.Target {
			targets++
		}
	}
	if p.Total <= 0 || len(nodes) < 2 || targets == 0 {
		switch {
		case p.Total <= 0:
			p.WhyNot = "there is no " + by + " to even out"
		case targets == 0:
			p.WhyNot = "no primary is up to take slots"
		default:
			p.WhyNot = "a single primary: nothing to move slots to"
		}
		return p
	}
	mean := p.Total / float64(len(nodes))
	hi, lo := mean*(1+tolerance), mean*(1-tolerance)
	within := func() bool {
		for i, n := range nodes {
			if sums[i] > hi || (n.Target && sums[i] < lo) {
				return false
			}
		}
		return true
	}
	for len(p.Moves) < maxMoves && !within() {
		from, to := -1, -1
		for i, n := range nodes {
			if from < 0 || sums[i] > sums[from] {
				from = i
			}
			if n.Target && (to < 0 || sums[i] < sums[to]) {
				to = i
			}
		}
		if from == to {
			break
		}
		gap := sums[from] - sums[to]
		best, bestScore := -1, math.Inf(1)
		var bestKeys int64
		for s, o := range own {
			if int(o) != from || load[s] <= 0 || load[s] >= gap {
				continue // moving it would not lower the larger of the two
			}
			score := math.Abs(load[s] - gap/2) // the nearer half the gap, the closer the two end
			k := int64(-1)
			if keys != nil {
				k = keys[s]
			}
			if score < bestScore-1e-9 || (math.Abs(score-bestScore) <= 1e-9 && k < bestKeys) {
				best, bestScore, bestKeys = s, score, k
			}
		}
		if best < 0 {
			break
		}
		sums[from] -= load[best]
		sums[to] += load[best]
		own[best] = int16(to)
		p.Moves = append(p.Moves, Move{Slot: uint16(best), From: nodes[from].Addr, To: nodes[to].Addr, Keys: bestKeys, Load: load[best]})
	}
	if !within() {
		p.WhyNot = whyNot(by, load, own, sums, nodes, mean, hi, len(p.Moves) >= maxMoves, &p)
	}
	return p
}

// whyNot says why the plan stops short of the bound: one slot holds more
// than a primary's fair share (no move of slots evens that), or the moves
// ran out.
func whyNot(by string, load []float64, own []int16, sums []float64, nodes []PlanNode, mean, hi float64, capped bool, p *Plan) string {
	top := 0
	for s := range load {
		if load[s] > load[top] {
			top = s
		}
	}
	if load[top] > hi {
		p.HotSlot = top
		return fmt.Sprintf("slot %d holds %.0f%% of the %s: no move of slots evens that (its queues share one slot)",
			top, 100*load[top]/p.Total, by)
	}
	if capped {
		return fmt.Sprintf("stopped at %d moves (--max-moves): the spread is closer, not within ±%.0f%%", len(p.Moves), 100*p.Tolerance)
	}
	worst := slices.MaxFunc(indexes(len(nodes)), func(a, b int) int { return cmp.Compare(sums[a], sums[b]) })
	return fmt.Sprintf("%s keeps %.0f%% of the %s: its slots are too few or too coarse to split it closer to the mean %.0f%%",
		nodes[worst].Addr, 100*sums[worst]/p.Total, by, 100*mean/p.Total)
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// PlanLoad is a snapshot's load per slot in a plan's measure, and why not
// when the snapshot does not have it.
func PlanLoad(f *Fold, by string) ([]float64, error) {
	s := f.Snap
	out := make([]float64, keyspace.SlotCount)
	switch by {
	case ByJobs:
		for i := range out {
			out[i] = float64(f.SlotLoad[i])
		}
	case ByExpired:
		for i := range out {
			out[i] = float64(f.SlotExpired[i])
		}
	case ByQueues:
		for i := range out {
			out[i] = float64(f.InSlot(uint16(i)))
		}
	case ByKeys:
		if s.Load == nil || s.Load.Keys == nil {
			return nil, fmt.Errorf("no key counts per slot: the servers give them with CLUSTER SLOT-STATS (Valkey 8 and newer)")
		}
		for i := range out {
			out[i] = float64(s.Load.Keys[i])
		}
	case ByCPU:
		if s.Load == nil || s.Load.CPU == nil {
			return nil, fmt.Errorf("no CPU per slot: the servers give it with CLUSTER SLOT-STATS and cluster-slot-stats-enabled yes, from two reads")
		}
		copy(out, s.Load.CPU)
	default:
		return nil, fmt.Errorf("--by %q: give one of jobs, queues, expired, keys, cpu", by)
	}
	return out, nil
}

// RebalanceSnapshot plans over a snapshot's primaries: a primary takes
// slots when it answered and is not failing; the keys a move migrates come
// from the servers' slot stats where they gave them.
func RebalanceSnapshot(s *Snapshot, load []float64, by string, maxMoves int, tolerance float64) Plan {
	topo := s.Topology
	pidx := map[int16]int16{}
	var nodes []PlanNode
	for _, i := range topo.Primaries() {
		n := topo.Nodes[i]
		target := n.Health != "fail"
		for _, ns := range s.Nodes {
			if ns.Addr == n.Addr && !ns.Up() {
				target = false
			}
		}
		pidx[int16(i)] = int16(len(nodes))
		nodes = append(nodes, PlanNode{Addr: n.Addr, Target: target})
	}
	owner := make([]int16, len(topo.Owner))
	for sl, o := range topo.Owner {
		owner[sl] = -1
		if j, ok := pidx[o]; ok {
			owner[sl] = j
		}
	}
	var keys []int64
	if s.Load != nil {
		keys = s.Load.Keys
	}
	return Rebalance(by, load, keys, owner, nodes, maxMoves, tolerance)
}
