package poller

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/keyspace"
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
	// indexed like queues, no map per poll: got[i] is 1 + queue i's place in
	// fresh, the queues read (a change-driven poll reads a few of many)
	var fresh []model.Queue
	got := make([]int32, len(queues))
	failed := map[int]string{}    // the queues whose batch failed: few, not a string a queue a poll
	nodeNow := map[string]int64{} // the clock of each node that answered
	for _, r := range results {
		st := p.state(r.plan.addr)
		ni, known := byAddr[r.plan.addr]
		snap.Poll.Commands += r.commands
		snap.Poll.RoundTrips += r.trips
		snap.Poll.Scripts += len(r.plan.batches)
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
				st.cost.account(now, len(r.plan.batches), p.ch.sweepBy[r.plan.addr], r.latency)
			}
			snap.ServerTimeMs = max(snap.ServerTimeMs, r.nowMs)
			nodeNow[r.plan.addr] = r.nowMs
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
			for k, row := range r.rows[bi] {
				if d := row.q.NextDeadlineMs; d > 0 && (home.deadline == 0 || d < home.deadline) {
					home.deadline = d
				}
				row.q.ReadFrom = r.plan.addr
				fresh = append(fresh, row.q)
				got[b.idx[k]] = int32(len(fresh))
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
	// a queue nothing changed is the last snapshot's, shared: no copy, no
	// write (the UI may be drawing the last snapshot); a new reading, or
	// a changed one, is a queue of its own (never an element of a shared
	// array, which one carried queue would keep whole)
	snap.Queues = make([]*model.Queue, 0, len(queues))
	for i, name := range queues {
		prev := p.prevOf(i, name)
		var slot uint16
		if prev != nil {
			slot = prev.Slot
		} else {
			slot = keyspace.QueueSlot(name)
		}
		owner := topo.OwnerOf(slot)
		var q *model.Queue
		switch {
		case prev != nil && owner != nil && p.ch.skip != nil && p.ch.skip[i] && nodeNow[owner.Addr] > 0:
			// not read: nothing of it changed, and its node answered
			q = carry(prev, owner.Addr)
			snap.Poll.Carried++
		case got[i] > 0:
			q = new(model.Queue)
			*q = fresh[got[i]-1]
			if len(p.opt.Pinned) > 0 && q.Err == "" && q.Pending == 0 && q.Active == 0 && q.Scheduled == 0 {
				// a name given with --queues that has no keys: a typo, or a
				// queue that is empty now (EchoMQ keeps no empty set)
				q.Err = NoKeys(name, p.opt.Target)
			}
		case owner == nil:
			q = stale(prev, name)
			q.Err, q.Unread = fmt.Sprintf("slot %d is not covered by any node", slot), true
		case failed[i] != "":
			q = stale(prev, name)
			q.Err, q.Unread = failed[i], true
		default: // its node did not answer, or it was found this poll
			q = stale(prev, name)
		}
		if q != prev {
			q.Name, q.Slot = name, slot
			if owner != nil {
				q.Node = owner.Addr
			}
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
	// the last good readings live on in this snapshot (stale ones copied
	// forward), so it is what the next poll falls back on
	p.prev, p.prevIdx = snap, nil
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

// prevOf is the last reading of queue i of this poll's list, nil when
// there is none. The previous snapshot usually lists the same queues in the
// same order; when it does not, a name index is built once.
func (p *Poller) prevOf(i int, name string) *model.Queue {
	if p.prev == nil {
		return nil
	}
	if i < len(p.prev.Queues) && p.prev.Queues[i].Name == name {
		return p.prev.Queues[i]
	}
	if p.prevIdx == nil {
		p.prevIdx = make(map[string]int, len(p.prev.Queues))
		for j := range p.prev.Queues {
			p.prevIdx[p.prev.Queues[j].Name] = j
		}
	}
	if j, ok := p.prevIdx[name]; ok {
		return p.prev.Queues[j]
	}
	return nil
}

// stale is a copy of the last reading, marked stale, or an empty one.
func stale(prev *model.Queue, name string) *model.Queue {
	if prev == nil {
		return &model.Queue{Name: name, OldestPendingAgeMs: -1, Stale: true}
	}
	q := *prev
	q.Stale = true
	return &q
}

// carry is the last reading, which nothing changed since: the same queue,
// shared, unless it was read in detail (its job lists are dropped: a
// queue on screen in detail is read every poll) or its node changed. Its
// oldest pending job's age moves on with the clock (Snapshot.OldestAge).
func carry(prev *model.Queue, owner string) *model.Queue {
	if !prev.Detail && !prev.Stale && prev.Node == owner {
		return prev
	}
	q := *prev
	q.Stale, q.Node = false, owner
	q.Detail, q.PendingJobs, q.ActiveJobs, q.Hist = false, nil, nil, nil
	return &q
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
