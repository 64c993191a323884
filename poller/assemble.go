package poller

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/model"
)

// maxForeignShown bounds the foreign keys a snapshot carries.
const maxForeignShown = 100

// assemble folds the nodes' answers into a snapshot. A node that failed
// keeps its queues' last good figures, marked stale; the others are fresh.
func (p *Poller) assemble(topo *model.Topology, queues []string, results []nodeResult) *model.Snapshot {
	now := time.Now()
	snap := &model.Snapshot{Target: p.opt.Target, Cluster: topo.Cluster, Topology: topo, Edges: p.Edges(), ByName: true}
	byAddr := map[string]int{}
	for _, n := range topo.Nodes {
		byAddr[n.Addr] = len(snap.Nodes)
		snap.Nodes = append(snap.Nodes, model.NodeStatus{Node: n})
	}
	rd := newReadings(results, len(queues))
	failed := map[int]string{}    // the queues whose batch failed: few, not a string a queue a poll
	nodeNow := map[string]int64{} // the clock of each node that answered
	for _, r := range results {
		st := p.state(r.plan.addr)
		ni, known := byAddr[r.plan.addr]
		snap.Poll.Commands += r.commands
		snap.Poll.RoundTrips += r.trips
		snap.Poll.Scripts += r.scripts
		if r.err != nil {
			msg := errText(r.err, p.opt.Timeout)
			p.mu.Lock() // refreshTopology reads st.err
			st.err = msg
			p.mu.Unlock()
			p.kickTopology() // the refresher asks the nodes that answered first
		} else if r.trips > 0 {
			p.mu.Lock()
			st.err = ""
			p.mu.Unlock()
			st.lastGood, st.latency = now, r.latency
			if r.plan.primary {
				a := r.plan.addr
				st.cost.account(now, reads{r.scripts, queuesIn(r.plan.batches), p.ch.sweepBy[a], p.ch.wholeBy[a], p.ch.dirtyBy[a]}, r.latency)
			}
			snap.ServerTimeMs = max(snap.ServerTimeMs, r.nowMs)
			nodeNow[r.plan.addr] = r.nowMs
		}
		if known {
			n := &snap.Nodes[ni]
			n.Scripts += r.scripts
			n.Commands += r.commands
			n.Trips += r.trips
		}
		if r.version != nil {
			p.version = *r.version
		}
		for bi, b := range r.plan.batches {
			if r.err != nil {
				continue
			}
			if err := r.batchErr[bi]; err != nil {
				if !errors.Is(err, errRedirected) {
					for _, i := range b.idx {
						failed[i] = errText(err, p.opt.Timeout)
					}
				}
				continue
			}
			home := b.home // the plan's batch: the first lease to run out of what was read
			if home == nil {
				home = &r.plan.batches[bi]
			}
			for k, q := range r.rows[bi] {
				if d := q.NextDeadlineMs; d > 0 && (home.deadline == 0 || d < home.deadline) {
					home.deadline = d
				}
				q.Elsewhere = r.plan.addr != q.Node.Addr()
				rd.put(b.idx[k], q)
			}
		}
	}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		st := p.nodes[n.Addr]
		if st == nil {
			continue
		}
		n.Server, n.Latency, n.LastGood, n.Err = st.server, st.latency, st.lastGood, st.err
		if n.Role == model.RolePrimary {
			n.Full = p.ch.full[n.Addr]
			n.Tracking = n.Full == ""
			n.Discovering, n.Walked = !st.listed && len(p.opt.Pinned) == 0, walked(st)
			if n.Discovering {
				n.Walked = min(n.Walked, 0.99)
			}
		}
	}
	snap.Poll.Read, snap.Poll.Why = p.ch.read, p.ch.why
	a := assembly{topo: topo, queues: queues, rd: rd, failed: failed, nodeNow: nodeNow, snap: snap, up: make([]bool, len(topo.Nodes))}
	for k, n := range topo.Nodes {
		a.up[k] = nodeNow[n.Addr] > 0
	}
	switch {
	case p.discoverAll && p.opt.Once:
		// --once's discovery read no queue: its snapshots list none (a
		// million placeholders, alive beside the poll after's readings,
		// were a quarter of its peak)
	case p.byDifference(&a):
		p.assembleChanged(&a)
	case p.byShift(&a):
		p.assembleShifted(&a)
	default:
		p.assembleAll(&a)
	}
	p.last = lastAssembly{topo: topo, queues: queues, unread: a.unread, detail: a.detail, tot: a.tot, touched: a.touched}
	// the last good readings live on in this snapshot (stale ones copied
	// forward), so it is what the next poll falls back on
	p.prev, p.prevAt = snap, nil
	snap.Version = p.version
	snap.DiscoveryComplete = len(p.opt.Pinned) > 0 || p.passComplete(snap, false)
	p.foreignKeys(topo, snap)
	if p.opt.Replicas {
		for _, n := range snap.Nodes {
			if n.Role == model.RoleReplica && n.Server != "" && !replicaSafe(n.Server) {
				snap.Notes = append(snap.Notes, fmt.Sprintf("reading %s's slots from its primary: it is %s, and replicas before Valkey 8 serve migrating slots with keys missing", n.Addr, n.Server))
			}
		}
	}
	if u := topo.Uncovered(); u > 0 {
		snap.Notes = append(snap.Notes, fmt.Sprintf("%d slots are not covered by any node", u))
	}
	return snap
}

func (p *Poller) foreignKeys(topo *model.Topology, snap *model.Snapshot) {
	all := map[string]string{}
	for _, i := range topo.Primaries() {
		st := p.nodes[topo.Nodes[i].Addr]
		if st == nil {
			continue
		}
		for k, v := range st.foreign {
			all[k] = v
		}
		for k, v := range st.passForeign {
			all[k] = v
		}
	}
	snap.ForeignCount = len(all)
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys[:min(len(keys), maxForeignShown)] {
		snap.ForeignKeys = append(snap.ForeignKeys, model.ForeignKey{Key: k, Reason: all[k]})
	}
}

// errText words an error for the operator.
func errText(err error, timeout time.Duration) string { return ErrText(err, timeout) }

// ErrText words a connection's error for the operator, without Go's or the
// client's jargon: a deadline is "no answer within 2s", a reply that is not
// RESP is "answered, but not as Valkey/Redis".
func ErrText(err error, timeout time.Duration) string {
	msg := err.Error()
	switch {
	case errors.Is(err, errAsking):
		return fmt.Sprintf("no answer within %v, retrying", timeout)
	case echomq.TimedOut(err):
		return fmt.Sprintf("no answer within %v", timeout)
	case strings.Contains(msg, "received unknown message type"):
		return "that port answered, but not as Valkey or Redis (another kind of server, such as HTTP?)"
	case echomq.ServerCode(err) == "TRYAGAIN":
		return "its slot is being moved, its keys split between two nodes (TRYAGAIN): figures from the last read until the move ends"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens there"
	}
	return msg
}

// walked is the share of a node's keys its SCAN pass has visited: 1 once a
// pass is whole and none is under way, at most 0.99 while one is.
func walked(st *nodeState) float64 {
	if st.cursor == "" || st.cursor == "0" {
		if st.passes > 0 {
			return 1
		}
		return 0
	}
	if st.keys <= 0 {
		return 0.99
	}
	return min(0.99, float64(st.passWalked)/float64(st.keys))
}
