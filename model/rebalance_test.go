package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// three primaries of 5461/5461/5462 slots, as a cluster is formed
func threeOwners() ([]int16, []PlanNode) {
	owner := make([]int16, 16384)
	for s := range owner {
		owner[s] = int16(min(2, s*3/16384))
	}
	return owner, []PlanNode{{Addr: "a:7000", Target: true}, {Addr: "b:7001", Target: true}, {Addr: "c:7002", Target: true}}
}

func TestRebalanceTable(t *testing.T) {
	owner, nodes := threeOwners()
	cases := []struct {
		name    string
		load    func(s int) float64
		down    int // a node that may not take slots (-1: none)
		moves   int // at most
		whyNot  string
		noMoves bool
	}{
		{"even already", func(s int) float64 { return 1 }, -1, 0, "", true},
		{"most on a", func(s int) float64 { // 30 busy slots on a
			if s < 5461 && s%180 == 0 {
				return 300
			}
			return float64(s % 2)
		}, -1, 30, "", false},
		{"one slot is the load", func(s int) float64 {
			if s == 105 {
				return 100000
			}
			return float64(s % 2)
		}, -1, 64, "slot 105 holds 92% of the jobs", false},
		{"never to a node that is down", func(s int) float64 {
			if s < 5461 && s%180 == 0 {
				return 300
			}
			return float64(s % 2)
		}, 1, 64, "", false},
		{"nothing", func(int) float64 { return 0 }, -1, 0, "there is no jobs to even out", true},
	}
	for _, tc := range cases {
		load := make([]float64, 16384)
		for s := range load {
			load[s] = tc.load(s)
		}
		ns := append([]PlanNode(nil), nodes...)
		if tc.down >= 0 {
			ns[tc.down].Target = false
		}
		p := Rebalance(ByJobs, load, nil, owner, ns, 0, 0.1)
		if len(p.Moves) > tc.moves || (tc.noMoves && len(p.Moves) > 0) {
			t.Errorf("%s: %d moves", tc.name, len(p.Moves))
		}
		if tc.whyNot == "" && p.WhyNot != "" && tc.down < 0 {
			t.Errorf("%s: why not %q", tc.name, p.WhyNot)
		}
		if tc.whyNot != "" && !strings.Contains(p.WhyNot, tc.whyNot) {
			t.Errorf("%s: why not %q, want %q", tc.name, p.WhyNot, tc.whyNot)
		}
		for _, m := range p.Moves {
			if tc.down >= 0 && m.To == ns[tc.down].Addr {
				t.Errorf("%s: a move to %s, which is down", tc.name, m.To)
			}
		}
		if tc.whyNot == "" && tc.down < 0 && !tc.noMoves {
			for addr, sh := range p.After {
				if math.Abs(sh-1.0/3) > 0.1/3+1e-9 {
					t.Errorf("%s: %s ends at %.3f of the load, outside ±10%% of the mean", tc.name, addr, sh)
				}
			}
		}
	}
}

// The properties: the plan never makes the worst primary worse, and
// applied to the slot map it gives the shares it predicts.
func TestRebalanceProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		owner, nodes := threeOwners()
		if round%3 == 0 { // an uneven slot map
			for s := range owner {
				owner[s] = int16(r.IntN(3))
			}
		}
		load := make([]float64, 16384)
		for i := 0; i < 1+r.IntN(400); i++ {
			load[r.IntN(16384)] += float64(1 + r.IntN(200))
		}
		keys := make([]int64, 16384)
		for s := range keys {
			keys[s] = int64(r.IntN(50))
		}
		if round%5 == 0 {
			nodes[r.IntN(3)].Target = false
		}
		p := Rebalance(ByJobs, load, keys, owner, nodes, 1+r.IntN(64), 0.1)
		worst := func(m map[string]float64) float64 {
			w := 0.0
			for _, v := range m {
				w = max(w, v)
			}
			return w
		}
		if worst(p.After) > worst(p.Before)+1e-12 {
			t.Fatalf("round %d: the worst share went from %.4f to %.4f", round, worst(p.Before), worst(p.After))
		}
		// apply the moves to the map: the shares are the predicted ones
		applied := append([]int16(nil), owner...)
		idx := map[string]int16{}
		for i, n := range nodes {
			idx[n.Addr] = int16(i)
		}
		for _, m := range p.Moves {
			if applied[m.Slot] != idx[m.From] {
				t.Fatalf("round %d: slot %d moved from %s, which does not own it then", round, m.Slot, m.From)
			}
			if !nodes[idx[m.To]].Target {
				t.Fatalf("round %d: a move to %s, not a target", round, m.To)
			}
			applied[m.Slot] = idx[m.To]
		}
		sums := map[string]float64{}
		for s, o := range applied {
			sums[nodes[o].Addr] += load[s]
		}
		for addr, sh := range p.After {
			if math.Abs(sums[addr]/p.Total-sh) > 1e-9 {
				t.Fatalf("round %d: %s: predicted %.4f, applied %.4f", round, addr, sh, sums[addr]/p.Total)
			}
		}
	}
}
