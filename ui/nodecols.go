package ui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/model"
)

// nodeCol is a column of a primary's row: a number is never cut, so a
// column that does not fit is dropped whole, the least wanted first.
type nodeCol struct {
	head string
	w    int
	drop int // the order columns go in when narrow: 1 first; 0 never
	cell func(n model.NodeStatus) string
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
