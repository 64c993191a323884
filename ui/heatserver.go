package ui

import (
	"fmt"
	"strings"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// server reports whether the mode is the servers' own load (SLOT-STATS).
func (m heatMode) server() bool { return m >= heatSrvKeys }

// format writes a value of the mode for the legend: CPU as a share of a
// core, network as bytes a second.
func (m heatMode) format(v int64) string {
	switch m {
	case heatCPU: // µs of server time a second
		switch {
		case v < 1000:
			return fmt.Sprintf("%dµs/s", v)
		case v < 1_000_000:
			return fmt.Sprintf("%.1fms/s", float64(v)/1000)
		}
		return fmt.Sprintf("%.1f cores", float64(v)/1e6)
	case heatNet:
		return textgate.Size(int(v)) + "/s"
	}
	return human(v)
}

// available says whether the servers gave what the mode shows, and in
// words why not: not read yet, a server without CLUSTER SLOT-STATS, the
// stats' CPU and network off (and how to turn them on), a standalone
// server (no slots).
func (p *heatPane) available() (bool, string) {
	if !p.mode.server() {
		return true, ""
	}
	s := p.c.snap
	if s == nil {
		return false, "no snapshot yet"
	}
	if !s.Cluster {
		return false, "a standalone server has no slots"
	}
	l := s.Load
	if l == nil {
		return false, "not read yet (CLUSTER SLOT-STATS, every 5s within the budget)"
	}
	why := func(skip string) string {
		for _, n := range s.Nodes {
			if st, ok := l.Nodes[n.Addr]; ok && st.Mode != model.SlotStatsFull && st.Mode != skip {
				return shortAddr(n.Addr, commonHost(s)) + ": " + textgate.Text(st.Why)
			}
		}
		return ""
	}
	switch {
	case p.mode == heatSrvKeys && l.Keys == nil:
		return false, why("")
	case p.mode != heatSrvKeys && l.CPU == nil:
		for _, st := range l.Nodes {
			if st.Mode == model.SlotStatsFull && st.RatesOver == 0 {
				return false, "measuring: a second read gives the rates"
			}
		}
		return false, why("")
	}
	return true, ""
}

// scriptCPUUncounted: a primary runs Valkey 8.0, which counts no CPU per
// slot for scripts (measured: EVAL and EVALSHA add nothing to cpu-usec),
// and EchoMQ's traffic is scripts.
func scriptCPUUncounted(s *model.Snapshot) bool {
	for _, n := range s.Nodes {
		if n.Role == model.RolePrimary && strings.HasPrefix(n.Server, "valkey 8.0.") {
			return true
		}
	}
	return false
}

// planBy is the plan's measure for the heatmap's mode: the network mode
// has no plan of its own and plans by jobs.
func (p *heatPane) planBy() string {
	return [...]string{model.ByJobs, model.ByQueues, model.ByExpired, model.ByKeys, model.ByCPU, model.ByJobs}[p.mode]
}
