package poller

import "github.com/echomq/emqtop/model"

// byShift reports whether this snapshot can be made from the last one
// when the list of queues is another (a queue came or went): as
// byDifference asks, but for the list, and with the slots of the new list
// at hand (the plan keeps them) so that no carried queue need be read.
func (p *Poller) byShift(a *assembly) bool {
	l := p.last
	if p.prev == nil || !p.prev.ByName || p.ch.due == nil || l.topo != a.topo || l.unread > 0 ||
		p.prev.Queues.Len() != len(l.queues) || !sameList(a.queues, p.list) || p.slots.of(a.queues) == nil {
		return false
	}
	for _, i := range a.topo.Primaries() {
		if !a.up[i] {
			return false
		}
	}
	return true
}

// assembleShifted is assembleChanged for a list with queues come or gone:
// each queue of the new list that was in the last and is not read, not in
// detail, its node answering, is the last one's (the pointer copied, the
// queue not looked at); the others are put in as assembleChanged puts
// them, and the sums move by the difference, the queues gone taken out.
// A queue more at a million walked, read and summed every queue (queueAt
// a million times, 80 ms) and put all of them in the history.
func (p *Poller) assembleShifted(a *assembly) {
	snap, prev := a.snap, p.prev
	p.sumsFromLast(a)
	if p.prevAt == nil {
		p.prevAt = prevPlaces(p.list, p.last.queues, prev.Queues)
	}
	pq, slots, due := prev.Queues, p.slots.of(a.queues), p.ch.due
	lastDetail := make(map[int32]bool, len(p.last.detail))
	for _, j := range p.last.detail {
		lastDetail[int32(j)] = true
	}
	used := make([]bool, pq.Len()) // the last list's places still listed
	var list model.QueueListBuilder
	carried := 0
	for i, name := range a.queues {
		j := p.prevAt[i]
		var old *model.Queue
		if j >= 0 {
			used[j] = true
			if o := a.topo.Owner[slots[i]]; !due[i] && !lastDetail[j] && o >= 0 && a.up[o] {
				list.Add(pq.At(int(j))) // carried, not looked at
				carried++
				continue
			}
			old = pq.At(int(j))
		}
		q, c := p.queueAt(a, i, name, old)
		if c {
			carried++
		}
		list.Add(q)
		if q.Stale || q.Unread {
			a.unread++
		}
		if q.Detail {
			a.detail = append(a.detail, i)
		}
		if q != old {
			a.touched = append(a.touched, i)
			if old != nil {
				a.add(old, -1)
			}
			a.add(q, 1)
		}
	}
	for j, u := range used {
		if !u {
			a.add(pq.At(j), -1) // gone
		}
	}
	snap.Queues = list.List()
	snap.Poll.Carried = carried
}

// sumsFromLast starts a snapshot made by difference from the last one's
// sums (the same topology: the same nodes in order), nothing put in yet.
func (p *Poller) sumsFromLast(a *assembly) {
	for k := range a.snap.Nodes {
		n, o := &a.snap.Nodes[k], &p.prev.Nodes[k]
		n.Queues, n.Pending, n.Active, n.Expired = o.Queues, o.Pending, o.Active, o.Expired
	}
	a.tot, a.touched = p.last.tot, []int{}
}

// sameList reports whether two lists of queues are the very same list
// (one array, as long): a list is never written once made, so the same
// array is the same names at the same places, with no name compared.
func sameList(x, y []string) bool {
	return len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
}
