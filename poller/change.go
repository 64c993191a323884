package poller

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// Change-driven polling (issue 16): a poll reads the slots that need it,
// and every other queue keeps its last reading, its age moved on with the
// server's clock. A slot needs reading when
//   - its node is read in full: no tracker runs there (refused, starting,
//     lost), or --full, --replicas, --once;
//   - the poller cannot prove it unchanged: the first poll of a tracker, a
//     flush, a tracker lost or lagging, a failover or a slot move (its
//     owner changed), a read of it that failed;
//   - the sweep reached it: a slow walk over every slot, Sweep long, the
//     net under everything else.
// and, of a slot that needs none of that, the queues that need reading are
// read alone (the rest of the slot's queues carry over):
//   - a key of the queue was written (its node's tracker said so);
//   - a lease in it ran out since it was read (NextDeadlineMs), or it has
//     no reading yet, or is on screen in detail.
// When most slots need reading anyway, the poll is a full one, as before.

// Reasons a slot needs reading, kept between polls until a read succeeds.
const (
	needNone uint8 = iota
	needSweep
	needUnproven
)

// mostChanged: when more than this share of the batches needs reading, the
// poll reads all of them (the plan's scripts are built once, the filtered
// ones are built each poll).
const mostChanged = 0.75

// changes is what change-driven polling keeps between polls.
type changes struct {
	mu       sync.Mutex // trackers: the starters write from their goroutines
	trackers map[string]*tracking
	closed   bool

	need      [keyspace.SlotCount]uint8
	needQ     map[uint16][]string        // queues written to, not yet read since, by slot (a batch looks up its slot's few, not each of its queues)
	dirty     [keyspace.SlotCount]bool   // slots of queues written since the last poll
	owner     [keyspace.SlotCount]string // each slot's owner at the last poll
	ownerTopo *model.Topology

	sweepPos float64   // the next slot of the sweep, with its fraction
	sweepAt  time.Time // when the sweep last moved on
	stretch  int       // the budget's: the sweep takes this many times Sweep
	// stretchSet: the first stretch was chosen from what a queue's read
	// costs (budget.go); until then the sweep holds (the start reads
	// every queue anyway)
	stretchSet  bool
	stretchFrom time.Time // when the poller began waiting for it
	shrunkAt    time.Time // when the budget last shortened the sweep (stretchFor)

	// what the last filter chose, for assemble
	full map[string]string // nodes read in full, and why
	// due: the queues (by poll index) a change-driven poll reads, the
	// others' readings carry over; nil in a poll that reads every queue.
	// dueList lists them; spare is due's array, kept between polls, and
	// spareSet where the last poll set it, cleared there, not whole
	due      []bool
	dueList  []int
	spare    []bool
	spareSet []int
	// outs: the arrays of the batches a poll reads, by plan, kept from
	// poll to poll (a poll is done with its batches when the next one
	// chooses; made each poll they were 0.18 MB of its 3.2 at a million)
	outs [][]batch
	// parts: the arrays the batches read in part are cut from, kept from
	// poll to poll as outs are (a thousand batches of a queue or two a
	// poll, three slices each, were 3,000 objects a poll)
	parts   partArena
	read    string
	why     map[string]int
	sweepBy map[string]int // the queues the sweep reads, by node
	// wholeBy: the queues by node read in full or unproven, which after
	// a start or a lost tracker are one poll's; dirtyBy those read for a
	// write, as many a second whatever the interval (budget.go)
	wholeBy, dirtyBy map[string]int
	// queuesOn: each primary's queues, until the sweep's first stretch is
	// set (stretchSet, budget.go)
	queuesOn map[string]int

	busy, quiet map[string]int   // polls in a row where tracking cost a node more than it saved, or not
	keysAt      map[string]int64 // each tracker's Keys at the last poll
}

func (ch *changes) mark(s uint16, r uint8) {
	if ch.need[s] < r {
		ch.need[s] = r
	}
}

// markNode marks every slot addr owned at the last poll.
func (ch *changes) markNode(addr string, r uint8) {
	for s := range ch.owner {
		if ch.owner[s] == addr {
			ch.mark(uint16(s), r)
		}
	}
}

// fullWhy says why every slot is read, for the whole poller; "" when
// change-driven polling applies.
func (p *Poller) fullWhy() string {
	switch {
	case p.opt.Full:
		return "--full"
	case p.opt.Replicas:
		return "--replicas (a replica may not yet hold what its primary's tracking reported)"
	case p.opt.DetailAll || p.opt.Once:
		return "--once reads everything"
	}
	return ""
}

// changed chooses what this poll reads: the plans with the batches that
// need reading. It records in p.ch which queues carry over and why.
func (p *Poller) changed(ctx context.Context, topo *model.Topology, queues []string, plans []nodePlan, clients map[string]valkey.Client) []nodePlan {
	ch := &p.ch
	ch.parts.reset()
	ch.read, ch.why, ch.due, ch.dueList, ch.full, ch.sweepBy = model.ReadFull, map[string]int{}, nil, nil, map[string]string{}, map[string]int{}
	ch.wholeBy, ch.dirtyBy = map[string]int{}, map[string]int{}
	if !ch.stretchSet {
		ch.queuesOn = make(map[string]int, len(plans))
		for _, np := range plans {
			if np.primary {
				ch.queuesOn[np.addr] = queuesIn(np.batches)
			}
		}
	}
	primaries := topo.Primaries()
	if why := p.fullWhy(); why != "" {
		p.vouch(nil, time.Time{})
		for _, i := range primaries {
			ch.full[topo.Nodes[i].Addr] = why
		}
		for _, np := range plans {
			ch.why[model.ReadFull] += len(np.batches)
			ch.wholeBy[np.addr] = queuesIn(np.batches)
		}
		return plans
	}
	now := time.Now()
	p.moved(topo)
	p.track(ctx, topo, clients, now)
	p.sweep(now)

	// the queues this poll reads, a flag a queue and a list: the array kept
	// from poll to poll (read by this poll's assemble alone), nothing written
	// for a queue not read (a million, a few read: not even a clear of it)
	if cap(ch.spare) < len(queues) {
		ch.spare, ch.spareSet = make([]bool, len(queues)), nil
	}
	isDue := unset(ch.spare[:cap(ch.spare)], ch.spareSet)[:len(queues)]
	dueList := ch.spareSet[:0] // the last poll's list, its flags cleared: its array again
	out := make([]nodePlan, len(plans))
	total, due := 0, 0
	for len(ch.outs) < len(plans) {
		ch.outs = append(ch.outs, nil)
	}
	for pi, np := range plans {
		out[pi] = np
		out[pi].batches = ch.outs[pi][:0]
		// the earliest the node's clock can be now: a lease is taken as run
		// out once the server's clock has surely passed it (read early, by
		// an offset measured ahead on a loaded machine, its queue was read
		// for nothing and its expired count came a poll late)
		st := p.state(np.addr)
		nowMs := now.Add(st.offset - st.offsetErr).UnixMilli()
		nodeQueues, changedQueues := 0, 0
		owner, full := "", false // the batches of a plan share their owner: one look-up, not 16,384
		for bi := range np.batches {
			home := &np.batches[bi]
			total++
			nodeQueues += len(home.queues)
			if bi == 0 || home.owner != owner {
				owner, full = home.owner, ch.full[home.owner] != ""
			}
			if !full && home.settled && ch.need[home.slot] == needNone && !ch.dirty[home.slot] && (home.deadline == 0 || home.deadline > nowMs) {
				// nothing of it can have changed: no queue of it read, looked at or copied
				continue
			}
			b := *home
			b.home = home
			r, part := p.reason(b, full, nowMs)
			if r == model.ReadDirty || r == model.ReadDeadline {
				changedQueues += len(b.queues)
				if part != nil {
					changedQueues += len(part) - len(b.queues)
				}
			}
			if r == "" {
				continue
			}
			due++
			ch.why[r]++
			if part != nil {
				b = b.part(part, &ch.parts)
			}
			switch r {
			case model.ReadSweep:
				ch.sweepBy[np.addr] += len(b.queues)
			case model.ReadFull, model.ReadUnproven, model.ReadNew:
				ch.wholeBy[np.addr] += len(b.queues)
			case model.ReadDirty:
				ch.dirtyBy[np.addr] += len(b.queues)
			}
			for _, i := range b.idx {
				isDue[i] = true
			}
			dueList = append(dueList, b.idx...)
			out[pi].batches = append(out[pi].batches, b)
		}
		if np.primary {
			p.busyNode(np.addr, changedQueues, nodeQueues, len(np.batches)-len(out[pi].batches))
		}
		ch.outs[pi] = out[pi].batches
	}
	ch.spareSet = dueList
	clear(ch.dirty[:]) // every queue written is read now, or not listed yet (new: read when it is)
	if float64(due) > mostChanged*float64(total) {
		// most of it changed: read it all with the plan's built scripts
		ch.why, ch.sweepBy = map[string]int{model.ReadFull: total}, map[string]int{}
		clear(ch.dirtyBy)
		for _, np := range plans {
			ch.wholeBy[np.addr] = queuesIn(np.batches)
		}
		return plans
	}
	ch.read, ch.due, ch.dueList = "changes", isDue, dueList
	return out
}

// reason says why batch b is read this poll, "" when it is not; part
// lists the queues to read (by their place in the batch) when only some
// need it: those written to, on screen, new, or whose lease ran out.
func (p *Poller) reason(b batch, full bool, nowMs int64) (why string, part []int) {
	ch := &p.ch
	switch {
	case full:
		return model.ReadFull, nil
	case ch.need[b.slot] == needUnproven:
		// a slot no queue held when its mark was set keeps it until a
		// queue shows up there: that read is of new queues
		for _, i := range b.idx {
			if p.prevOf(i) != nil {
				return model.ReadUnproven, nil
			}
		}
		return model.ReadNew, nil
	}
	if h := b.home; h != nil && h.settled && ch.need[b.slot] == needNone && (h.deadline == 0 || h.deadline > nowMs) {
		// settled, no lease of it run out: only the queues written to can
		// have changed, and the others are not looked at (a write to a
		// slot of 61 queues read one, not 61 last readings; the batch
		// stays settled, its deadline lowered by what the read finds)
		switch ws := ch.needQ[b.slot]; {
		case len(ws) == 0:
		default: // each written queue found by its tag: a name or two looked at, not each
			for _, w := range ws {
				if k, ok := h.find(w); ok {
					part = append(part, k)
				}
			}
			slices.Sort(part)
			part = slices.Compact(part)
		}
		switch len(part) {
		case 0:
			return "", nil
		case len(b.queues):
			return model.ReadDirty, nil
		}
		return model.ReadDirty, part
	}
	// whether the batch is settled, and its first deadline, are learnt
	// here for the next polls: a queue read now lowers the deadline when
	// its reading comes (assemble)
	settled, deadline := true, int64(0)
	defer func() {
		if b.home != nil {
			b.home.settled, b.home.deadline = settled, deadline
		}
	}()
	for k, i := range b.idx {
		r := ""
		written := hasName(ch.needQ[b.slot], b.queues[k])
		q := p.prevOf(i)
		switch {
		case written:
			r = model.ReadDirty
		case b.detail[k]:
			r, settled = model.ReadDetail, false
		case q == nil || q.Stale:
			r, settled = model.ReadNew, false
		case q.NextDeadlineMs > 0 && q.NextDeadlineMs <= nowMs:
			r = model.ReadDeadline
		default:
			if d := q.NextDeadlineMs; d > 0 && (deadline == 0 || d < deadline) {
				deadline = d
			}
			continue
		}
		if why == "" {
			why = r
		}
		part = append(part, k)
	}
	switch {
	case ch.need[b.slot] == needSweep:
		return model.ReadSweep, nil
	case len(part) == len(b.queues):
		return why, nil
	}
	return why, part
}

// moved marks the slots whose owner changed since the last poll: a
// failover, a slot move, a node gone.
func (p *Poller) moved(topo *model.Topology) {
	ch := &p.ch
	if ch.ownerTopo == topo {
		return
	}
	ch.ownerTopo = topo
	for s := range ch.owner {
		addr := ""
		if o := topo.OwnerOf(uint16(s)); o != nil {
			addr = o.Addr
		}
		if addr != ch.owner[s] {
			ch.owner[s] = addr
			ch.mark(uint16(s), needUnproven)
		}
	}
}

// settle clears what a poll read well and marks what it could not read:
// a failed batch's slot, every slot of a node that did not answer.
func (p *Poller) settle(results []nodeResult) {
	ch := &p.ch
	var failed []uint16
	for _, r := range results {
		if r.err != nil {
			ch.markNode(r.plan.addr, needUnproven)
			for _, b := range r.plan.batches {
				failed = append(failed, b.slot)
				ch.readOf(b)
			}
			continue
		}
		for bi, b := range r.plan.batches {
			ch.readOf(b) // read, or its slot is marked below
			switch err := r.batchErr[bi]; {
			case err == nil:
				ch.need[b.slot] = needNone
			case err != errRedirected:
				failed = append(failed, b.slot)
			}
		}
	}
	for _, s := range failed {
		ch.mark(s, needUnproven)
	}
}

// readOf takes a batch's queues out of the queues written to.
func (ch *changes) readOf(b batch) {
	ws := ch.needQ[b.slot]
	if len(ws) == 0 {
		return
	}
	ws = slices.DeleteFunc(ws, func(q string) bool { return hasName(b.queues, q) })
	if len(ws) == 0 {
		delete(ch.needQ, b.slot)
	} else {
		ch.needQ[b.slot] = ws
	}
}
