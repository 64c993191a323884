package poller

import (
	"fmt"
	"slices"
	"sort"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// assembly is one poll's snapshot in the making: what the nodes answered,
// and what assembling it learnt for the next poll and for the history.
type assembly struct {
	topo    *model.Topology
	queues  []string
	rd      *readings
	failed  map[int]string
	nodeNow map[string]int64
	up      []bool // by the topology's node index: it answered (nodeNow)
	snap    *model.Snapshot
	// learnt: how many queues are stale or unread, the queues read in
	// detail (by place), the totals, and the queues that are not the last
	// snapshot's (by place; nil: there was no last snapshot)
	unread  int
	detail  []int
	tot     [model.Metrics]int64
	touched []int
}

// lastAssembly is what the last snapshot was assembled from and what it
// learnt, so that the next one can be made by difference.
type lastAssembly struct {
	topo    *model.Topology
	queues  []string
	unread  int
	detail  []int
	tot     [model.Metrics]int64
	touched []int // nil when there was no snapshot before
}

// readings finds a queue's fresh reading by its place in the poll's list:
// an array like the list when the poll read many, a map when it read few
// (a change-driven poll of a million queues reads a thousand: no array
// of a million a poll). The readings are the decoder's queues.
type readings struct {
	fresh []*model.Queue
	at    []int32       // 1 + the place in fresh
	few   map[int]int32 // the same, for a poll that read few
}

func newReadings(results []nodeResult, queues int) *readings {
	n := 0
	for _, r := range results {
		for _, rows := range r.rows {
			n += len(rows)
		}
	}
	rd := &readings{fresh: make([]*model.Queue, 0, n)}
	if n*8 < queues {
		rd.few = make(map[int]int32, n)
	} else {
		rd.at = make([]int32, queues)
	}
	return rd
}

func (rd *readings) put(i int, q *model.Queue) {
	rd.fresh = append(rd.fresh, q)
	if rd.few != nil {
		rd.few[i] = int32(len(rd.fresh))
	} else {
		rd.at[i] = int32(len(rd.fresh))
	}
}

// of is queue i's fresh reading, nil when it was not read.
func (rd *readings) of(i int) *model.Queue {
	var k int32
	if rd.few != nil {
		k = rd.few[i]
	} else {
		k = rd.at[i]
	}
	if k == 0 {
		return nil
	}
	return rd.fresh[k-1]
}

// byDifference reports whether this snapshot can be the last one with the
// queues this poll read put in: the same topology and list of queues, a
// change-driven poll, every primary answered, and nothing of the last
// snapshot stale or unread (each of those would change without a read).
func (p *Poller) byDifference(a *assembly) bool {
	l := p.last
	if p.prev == nil || p.ch.due == nil || l.topo != a.topo || l.unread > 0 ||
		!sameList(l.queues, a.queues) || p.prev.Queues.Len() != len(a.queues) {
		return false
	}
	for _, i := range a.topo.Primaries() {
		if a.nodeNow[a.topo.Nodes[i].Addr] == 0 {
			return false
		}
	}
	return true
}

// assembleAll walks every queue: the first poll, a full one, and any poll
// the last snapshot cannot be the base of.
func (p *Poller) assembleAll(a *assembly) {
	snap := a.snap
	var list model.QueueListBuilder
	if p.prev != nil {
		// the places whose queue is not the last snapshot's, for the
		// history (record): a carried queue holds its past already (a
		// poll whose list had a queue more put a million queues' values)
		a.touched = []int{}
	}
	for i, name := range a.queues {
		prev := p.prevOf(i)
		q, carried := p.queueAt(a, i, name, prev)
		if carried {
			snap.Poll.Carried++
		}
		list.Add(q)
		a.learn(i, q, nil)
		if a.touched != nil && q != prev {
			a.touched = append(a.touched, i)
		}
	}
	snap.Queues = list.List()
}

// assembleChanged is the last snapshot with the queues that may differ
// put in: those read or due to be (not carried), and those the last one
// had in detail (their job lists go). Node sums and totals move by the
// difference; a carried queue is not looked at.
func (p *Poller) assembleChanged(a *assembly) {
	snap, prev := a.snap, p.prev
	p.sumsFromLast(a)
	var puts []*model.Queue
	put := func(i int) {
		old := prev.Queues.At(i)
		q, _ := p.queueAt(a, i, a.queues[i], old)
		if q == old {
			return
		}
		puts = append(puts, q)
		a.learn(i, q, old)
	}
	due := p.ch.due
	snap.Poll.Carried = len(due) - len(p.ch.dueList) // their nodes answered: carry() keeps them
	for _, i := range p.ch.dueList {
		put(i)
	}
	for _, i := range p.last.detail {
		if !due[i] {
			put(i) // carried without its job lists
		}
	}
	// the places in order (the last detail's came after), and the list
	// with them put in: the chunks with none are the last list's
	sort.Sort(byPlace{a.touched, puts})
	snap.Queues = prev.Queues.With(a.touched, puts)
	// the detail list: the last one's still in detail, and the new
	for _, i := range p.last.detail {
		if q := snap.Queues.At(i); q.Detail && !slices.Contains(a.detail, i) {
			a.detail = append(a.detail, i)
		}
	}
}

// byPlace sorts places and the queues put there together.
type byPlace struct {
	at []int
	qs []*model.Queue
}

func (b byPlace) Len() int           { return len(b.at) }
func (b byPlace) Less(i, j int) bool { return b.at[i] < b.at[j] }
func (b byPlace) Swap(i, j int) {
	b.at[i], b.at[j] = b.at[j], b.at[i]
	b.qs[i], b.qs[j] = b.qs[j], b.qs[i]
}

// learn counts queue q (at place i of the list) in the snapshot's sums;
// old is the last snapshot's reading it replaces, nil when the sums are
// made whole.
func (a *assembly) learn(i int, q, old *model.Queue) {
	if q.Stale || q.Unread {
		a.unread++
	}
	if q.Detail && (old == nil || !old.Detail) {
		a.detail = append(a.detail, i)
	}
	if old != nil {
		a.touched = append(a.touched, i)
		a.add(old, -1)
	}
	a.add(q, 1)
}

// add counts q into the node sums and totals, or out of them (sign -1).
func (a *assembly) add(q *model.Queue, sign int64) {
	a.tot[model.MPending] += sign * q.Pending
	a.tot[model.MActive] += sign * q.Active
	a.tot[model.MExpired] += sign * q.Expired
	a.tot[model.MScheduled] += sign * q.Scheduled
	o := a.topo.Owner[q.Slot]
	if o < 0 {
		return
	}
	n := &a.snap.Nodes[o]
	n.Queues += int(sign)
	n.Pending += sign * q.Pending
	n.Active += sign * q.Active
	n.Expired += sign * q.Expired
}

// queueAt is queue i of this poll (name, its last reading prev): the last
// reading carried when nothing of it changed and its node answered, the
// fresh one when it was read, else the last marked stale, with why.
func (p *Poller) queueAt(a *assembly, i int, name string, prev *model.Queue) (q *model.Queue, carried bool) {
	var slot uint16
	if prev != nil {
		slot = prev.Slot
	} else {
		slot = keyspace.QueueSlot(name)
	}
	oi := a.topo.Owner[slot]
	var owner *model.Node
	if oi >= 0 {
		owner = &a.topo.Nodes[oi]
	}
	if prev != nil && owner != nil && p.ch.due != nil && !p.ch.due[i] && a.up[oi] {
		// not read: nothing of it changed, and its node answered (no look
		// in a map: a poll with a queue more walks a million)
		return p.carry(prev, owner.Addr), true
	}
	switch fresh := a.rd.of(i); {
	case fresh != nil && prev != nil && owner != nil && sameReading(prev, fresh, owner.Addr):
		// read (the sweep, a write that changed nothing it counts): the
		// same figures, so the same queue, shared, as a carried one is
		q = prev
	case fresh != nil:
		q = fresh // the decoder's, this poll's own
		if prev != nil && prev.Name == name {
			q.CarryPast(prev) // the history holds its series: no look-up of the name to put it
		}
		if len(p.opt.Pinned) > 0 && q.Err == "" && q.Pending == 0 && q.Active == 0 && q.Scheduled == 0 {
			// a name given with --queues that has no keys: a typo, or a
			// queue that is empty now (EchoMQ keeps no empty set)
			q.Err = NoKeys(name, p.opt.Target)
		}
	case owner == nil:
		q = p.stale(prev, name)
		q.Err, q.Unread = fmt.Sprintf("slot %d is not covered by any node", slot), true
	case a.failed[i] != "":
		q = p.stale(prev, name)
		q.Err, q.Unread = a.failed[i], true
	default: // its node did not answer, or it was found this poll
		q = p.stale(prev, name)
	}
	if q != prev {
		q.Name, q.Slot = name, slot
		if owner != nil {
			q.Node = model.RefOf(owner.Addr)
		}
	}
	return q, carried
}

// prevOf is the last reading of queue i of this poll's list (p.list), nil when
// there is none. The previous snapshot usually lists the same queues in the
// same order; when it does not (a queue came or went), each place's place
// in the last list is made once, by a walk of both lists of names side by
// side (prevPlaces): a map of a million names was 300 ms and 50 MB at
// every poll whose list had one queue more.
func (p *Poller) prevOf(i int) *model.Queue {
	if p.prev == nil {
		return nil
	}
	pq, last := p.prev.Queues, p.last.queues
	if sameList(last, p.list) && pq.Len() == len(last) {
		// the last snapshot was made from this very list, place for
		// place: no name to read (a cache miss a queue at a million)
		return pq.At(i)
	}
	if p.prevAt == nil {
		p.prevAt = prevPlaces(p.list, last, pq)
	}
	if i < len(p.prevAt) && p.prevAt[i] >= 0 {
		return pq.At(int(p.prevAt[i])) // the walk matched the names
	}
	return nil
}

// prevPlaces is, for each name of list, the place of its queue in prev
// (-1: none); last is the list of names prev was assembled from, place for
// place, when it was. The poller's lists are sorted (discovery's, and
// Options.Pinned), so the two lists of names are walked side by side:
// names of one table compare by their pointers first. (Were they not, a
// name missed is a queue read as new: a read more, never a wrong figure.)
// A snapshot not made from last (--once's discovery lists no queue) has
// its names looked up in a map.
func prevPlaces(list, last []string, prev model.QueueList) []int32 {
	at := make([]int32, len(list))
	if len(last) == prev.Len() {
		j := 0
		for i, name := range list {
			for j < len(last) && last[j] < name {
				j++
			}
			at[i] = -1
			if j < len(last) && last[j] == name {
				at[i] = int32(j)
			}
		}
		return at
	}
	idx := make(map[string]int32, prev.Len())
	for j := range prev.Len() {
		idx[prev.At(j).Name] = int32(j)
	}
	for i, name := range list {
		at[i] = -1
		if j, ok := idx[name]; ok {
			at[i] = j
		}
	}
	return at
}

// sameReading reports whether a fresh reading says what the last one
// (prev, on node owner) says, now and as the clock moves on: the same
// counts, error, oldest pending score and next deadline, neither in
// detail, the last one neither stale nor unread.
func sameReading(prev, fresh *model.Queue, owner string) bool {
	return !prev.Stale && !prev.Unread && !prev.Detail && !fresh.Detail && prev.Node.Addr() == owner && prev.Elsewhere == fresh.Elsewhere &&
		prev.Pending == fresh.Pending && prev.Active == fresh.Active && prev.Scheduled == fresh.Scheduled && prev.Expired == fresh.Expired &&
		prev.OldestScoreMs == fresh.OldestScoreMs && prev.NextDeadlineMs == fresh.NextDeadlineMs && prev.Err == fresh.Err &&
		// the oldest pending job's age moves with the clock from its score;
		// without one it is the age as read, which a reading carries
		(prev.OldestScoreMs > 0 || prev.OldestPendingAgeMs == fresh.OldestPendingAgeMs)
}

// stale is a copy of the last reading, marked stale, or an empty one.
func (p *Poller) stale(prev *model.Queue, name string) *model.Queue {
	if prev == nil {
		q := p.store.Copy(&model.Queue{})
		q.Name, q.OldestPendingAgeMs, q.Stale = name, -1, true
		return q
	}
	q := p.store.Copy(prev)
	q.Stale = true
	return q
}

// carry is the last reading, which nothing changed since: the same queue,
// shared, unless it was read in detail (its job lists are dropped: a
// queue on screen in detail is read every poll) or its node changed. Its
// oldest pending job's age moves on with the clock (Snapshot.OldestAge).
func (p *Poller) carry(prev *model.Queue, owner string) *model.Queue {
	if !prev.Detail && !prev.Stale && prev.Node.Addr() == owner {
		return prev
	}
	q := p.store.Copy(prev)
	q.Stale, q.Node = false, model.RefOf(owner)
	q.Detail, q.Jobs = false, nil
	return q
}
