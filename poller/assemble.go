package poller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// maxForeignShown bounds the foreign keys a snapshot carries.
const maxForeignShown = 100

// assemble folds the nodes' answers into a snapshot. A node that failed
// keeps its queues' last good figures, marked stale; the others are fresh.
func (p *Poller) assemble(topo *model.Topology, queues []string, results []nodeResult) *model.Snapshot {
	now := time.Now()
	snap := &model.Snapshot{Target: p.opt.Target, Cluster: topo.Cluster, Topology: topo, Edges: p.Edges()}
	byAddr := map[string]int{}
	for _, n := range topo.Nodes {
		byAddr[n.Addr] = len(snap.Nodes)
		snap.Nodes = append(snap.Nodes, model.NodeStatus{Node: n})
	}
	fresh := make(map[string]model.Queue, len(queues))
	failed := map[string]string{}
	for _, r := range results {
		st := p.state(r.plan.addr)
		ni, known := byAddr[r.plan.addr]
		snap.Poll.Commands += r.commands
		snap.Poll.RoundTrips += r.trips
		snap.Poll.Scripts += len(r.plan.batches)
		if r.err != nil {
			msg := errText(r.err, p.opt.Timeout)
			st.err = msg
			p.kickTopology()
		} else if r.trips > 0 {
			st.err, st.lastGood, st.latency = "", now, r.latency
			snap.ServerTimeMs = max(snap.ServerTimeMs, r.nowMs)
		}
		if known {
			n := &snap.Nodes[ni]
			n.Scripts += len(r.plan.batches)
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
					for _, q := range b.queues {
						failed[q] = errText(err, p.opt.Timeout)
					}
				}
				continue
			}
			for _, row := range r.rows[bi] {
				row.q.ReadFrom = r.plan.addr
				fresh[row.q.Name] = row.q
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
	}
	snap.Queues = make([]model.Queue, 0, len(queues))
	for _, name := range queues {
		q, ok := fresh[name]
		slot := keyspace.QueueSlot(name)
		owner := topo.OwnerOf(slot)
		switch {
		case ok:
			p.last[name] = q
		case owner == nil:
			q = p.stale(name)
			q.Err = fmt.Sprintf("slot %d is not covered by any node", slot)
		case failed[name] != "":
			q = p.stale(name)
			q.Err = failed[name]
		default: // its node did not answer, or it was found this poll
			q = p.stale(name)
		}
		q.Name, q.Slot = name, slot
		if owner != nil {
			q.Node = owner.Addr
		}
		snap.Queues = append(snap.Queues, q)
		if owner != nil {
			n := &snap.Nodes[topo.Owner[slot]]
			n.Queues++
			n.Pending += q.Pending
			n.Active += q.Active
			n.Expired += q.Expired
		}
	}
	// forget queues that discovery dropped
	if len(p.last) > len(queues) {
		keep := make(map[string]bool, len(queues))
		for _, q := range queues {
			keep[q] = true
		}
		for q := range p.last {
			if !keep[q] {
				delete(p.last, q)
			}
		}
	}
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

// stale is the last good reading of a queue, marked stale, or an empty one.
func (p *Poller) stale(name string) model.Queue {
	q, ok := p.last[name]
	if !ok {
		return model.Queue{Name: name, OldestPendingAgeMs: -1, Stale: true}
	}
	q.Stale = true
	return q
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
func errText(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %v", timeout)
	}
	return err.Error()
}
