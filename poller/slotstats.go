package poller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// SlotStatsEvery is the shortest time between two reads of a primary's
// CLUSTER SLOT-STATS by default (Options.SlotStatsEvery); the budget
// stretches it (slotStatsShare).
const SlotStatsEvery = 5 * time.Second

// SlotStatsKeysEvery is the shortest time between two reads of a primary
// whose slot stats are its key counts alone (cluster-slot-stats-enabled
// off, the default), unless one of its slots moved since: key counts move
// slowly, and a read is 16,384 slots decoded by the client, not by the
// server alone (about 2.4 MB allocated a read; read every 5 s, it was 5-7
// ms of the dashboard's CPU a poll at a million queues, a sixth of it).
const SlotStatsKeysEvery = 30 * time.Second

// slotStatsShare is the part of the self-load budget SLOT-STATS may take:
// a read of a primary's slots is spaced so that it costs at most this
// share of the budget.
const slotStatsShare = 0.25

// slotStatsState is what the poller keeps of a primary's slot stats: the
// last read, and its slots' CPU and network counters then (cumulative,
// for the rates of the next read).
type slotStatsState struct {
	node     model.SlotStatsNode
	cpu, net map[uint16]int64
}

// slotStatsDue reports whether a primary's slots (ranges) are read this
// poll.
func (p *Poller) slotStatsDue(st *nodeState, ranges []model.Range, now time.Time) bool {
	ss := st.slots
	switch {
	case ss.node.ReadAt.IsZero():
		return true
	case ss.node.Mode == model.SlotStatsNone:
		return now.Sub(ss.node.ReadAt) >= 10*time.Minute // a server upgraded in place
	}
	every := p.opt.SlotStatsEvery
	if ss.node.Mode == model.SlotStatsKeys && !p.movedSince(ranges, ss.node.ReadAt) {
		every = max(every, SlotStatsKeysEvery)
	}
	if b := p.opt.Budget * slotStatsShare; b > 0 && ss.node.Cost > 0 {
		every = max(every, time.Duration(float64(ss.node.Cost)/b))
	}
	return now.Sub(ss.node.ReadAt) >= every
}

// movedSince reports whether a slot of ranges changed owner after t.
func (p *Poller) movedSince(ranges []model.Range, t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range ranges {
		for s := int(r.Lo); s <= int(r.Hi); s++ {
			if p.movedAt[s].After(t) {
				return true
			}
		}
	}
	return false
}

// slotStats reads the slot stats of the primaries due, in parallel, one
// round trip each (TIME around the reads, so their server time is known),
// and gives the snapshot the servers' load per slot.
func (p *Poller) slotStats(ctx context.Context, topo *model.Topology, clients map[string]valkey.Client, snap *model.Snapshot) {
	now := time.Now()
	type due struct {
		addr   string
		ranges []model.Range
		nc     valkey.Client
		st     *nodeState
	}
	var dues []due
	for _, i := range topo.Primaries() {
		n := topo.Nodes[i]
		st, nc := p.nodes[n.Addr], clients[n.Addr]
		if st == nil || nc == nil || st.err != "" || len(n.Slots) == 0 || !p.slotStatsDue(st, n.Slots, now) {
			continue
		}
		dues = append(dues, due{n.Addr, n.Slots, nc, st})
	}
	if len(dues) == 0 {
		snap.Load = p.load
		return
	}
	var wg sync.WaitGroup
	for _, d := range dues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readSlotStats(ctx, d.nc, d.st, d.ranges, p.opt.Timeout)
		}()
	}
	wg.Wait()
	p.load = p.buildLoad(topo)
	snap.Load = p.load
}

// readSlotStats reads one primary's slots and updates its state.
func readSlotStats(ctx context.Context, nc valkey.Client, st *nodeState, ranges []model.Range, timeout time.Duration) {
	cmds := []valkey.Completed{nc.B().Time().Build()}
	for _, r := range ranges {
		cmds = append(cmds, nc.B().ClusterSlotStats().Slotsrange().StartSlot(int64(r.Lo)).EndSlot(int64(r.Hi)).Build())
	}
	cmds = append(cmds, nc.B().Time().Build())
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	replies := nc.DoMulti(rctx, cmds...)
	ss := &st.slots
	at := time.Now()
	prevAt := ss.node.ReadAt
	ss.node.ReadAt = at
	for _, r := range replies[1 : len(replies)-1] {
		if err := r.Error(); err != nil {
			if isUnknownCommand(err) {
				ss.node = model.SlotStatsNode{Mode: model.SlotStatsNone, ReadAt: at,
					Why: fmt.Sprintf("%s has no CLUSTER SLOT-STATS (Valkey 8 and newer have it)", serverWords(st.server))}
			} else {
				ss.node = model.SlotStatsNode{Mode: model.SlotStatsError, ReadAt: at, Why: "CLUSTER SLOT-STATS: " + ErrText(err, timeout)}
			}
			ss.cpu, ss.net = nil, nil
			return
		}
	}
	if took, ok := serverTime(replies[0], replies[len(replies)-1]); ok {
		ss.node.Cost = took
	}
	cpu, net := map[uint16]int64{}, map[uint16]int64{}
	keys := map[uint16]int64{}
	full := false
	for _, r := range replies[1 : len(replies)-1] {
		entries, _ := r.ToArray()
		for _, e := range entries {
			pair, err := e.ToArray()
			if err != nil || len(pair) != 2 {
				continue
			}
			slot, err := pair[0].AsInt64()
			if err != nil || slot < 0 || slot >= keyspace.SlotCount {
				continue
			}
			m, err := pair[1].AsIntMap()
			if err != nil {
				continue
			}
			s := uint16(slot)
			keys[s] = m["key-count"]
			if c, ok := m["cpu-usec"]; ok {
				full = true
				cpu[s] = c
				net[s] = m["network-bytes-in"] + m["network-bytes-out"]
			}
		}
	}
	over := time.Duration(0)
	if full && ss.cpu != nil && !prevAt.IsZero() {
		over = at.Sub(prevAt)
	}
	ss.node.Mode, ss.node.Why, ss.node.RatesOver = model.SlotStatsKeys, "", over
	if full {
		ss.node.Mode = model.SlotStatsFull
	} else {
		ss.node.Why = "cluster-slot-stats-enabled is off: CONFIG SET cluster-slot-stats-enabled yes on each primary " +
			"gives the CPU and network per slot (the server then counts them on every command, a little work each); emqtop never changes it"
	}
	ss.node.Keys, ss.node.CPU, ss.node.Net = 0, 0, 0
	for _, k := range keys {
		ss.node.Keys += k
	}
	// the rates: counters of the two reads, on this node, of the same slot
	st.slotRates = map[uint16][2]float64{}
	if over > 0 {
		for s, c := range cpu {
			if pc, ok := ss.cpu[s]; ok && c >= pc {
				pn := ss.net[s]
				r := [2]float64{float64(c-pc) / over.Seconds(), float64(max(0, net[s]-pn)) / over.Seconds()}
				st.slotRates[s] = r
				ss.node.CPU += r[0]
				ss.node.Net += r[1]
			}
		}
	}
	st.slotKeys = keys
	ss.cpu, ss.net = nil, nil
	if full {
		ss.cpu, ss.net = cpu, net
	}
}

// buildLoad makes the snapshot's SlotLoad from every primary's last read.
func (p *Poller) buildLoad(topo *model.Topology) *model.SlotLoad {
	l := &model.SlotLoad{Nodes: map[string]model.SlotStatsNode{}}
	for _, i := range topo.Primaries() {
		n := topo.Nodes[i]
		st := p.nodes[n.Addr]
		if st == nil || st.slots.node.ReadAt.IsZero() {
			continue
		}
		l.Nodes[n.Addr] = st.slots.node
		if len(st.slotKeys) > 0 && l.Keys == nil {
			l.Keys = make([]int64, keyspace.SlotCount)
		}
		owns := func(s uint16) bool { o := topo.OwnerOf(s); return o != nil && o.Addr == n.Addr }
		for s, k := range st.slotKeys {
			if owns(s) { // a slot moved since its last read is its new owner's
				l.Keys[s] = k
			}
		}
		if st.slots.node.Mode == model.SlotStatsFull && st.slots.node.RatesOver > 0 {
			if l.CPU == nil {
				l.CPU, l.Net = make([]float64, keyspace.SlotCount), make([]float64, keyspace.SlotCount)
			}
			for s, r := range st.slotRates {
				if owns(s) {
					l.CPU[s], l.Net[s] = r[0], r[1]
				}
			}
		}
	}
	if len(l.Nodes) == 0 {
		return nil
	}
	return l
}

// serverWords words a node's server ("redis 7.0.15") for a sentence.
func serverWords(server string) string {
	if server == "" || server == "unknown" {
		return "this server"
	}
	name, ver, _ := strings.Cut(server, " ")
	return strings.ToUpper(name[:1]) + name[1:] + " " + ver
}
