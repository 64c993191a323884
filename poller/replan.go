package poller

import (
	"slices"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// keepSettled carries what change-driven polling learnt of a batch (it is
// settled, its first deadline) from an old plan to a new one, for each
// batch of the same slot, owner and queues, in the same order: a plan made
// again for a queue more left 16,383 slots of 16,384 as they were, and
// each poll after a new queue walked every queue of them (a million last
// readings looked at) to learn it again.
func keepSettled(old, plans []nodePlan) {
	type key struct {
		addr string
		slot uint16
	}
	was := map[key][]*batch{}
	for pi := range old {
		for bi := range old[pi].batches {
			b := &old[pi].batches[bi]
			if b.settled {
				k := key{old[pi].addr, b.slot}
				was[k] = append(was[k], b)
			}
		}
	}
	if len(was) == 0 {
		return
	}
	for pi := range plans {
		for bi := range plans[pi].batches {
			b := &plans[pi].batches[bi]
			for _, o := range was[key{plans[pi].addr, b.slot}] {
				if o.owner == b.owner && slices.Equal(o.queues, b.queues) && slices.Equal(o.detail, b.detail) {
					b.settled, b.deadline, b.tags = true, o.deadline, o.tags
					break
				}
			}
		}
	}
}

// withAdded is the last list with the names discovery added since put in,
// when that is all that changed: every change of the set since the list
// was made is one of them (a queue gone, a pass ended short, a list kept
// unsure change it otherwise), the topology is the same, and each was
// found on the primary that owns its slot. The names go in by a binary
// search each and the list is copied around them: a queue more at a
// million sorted the million names and searched each of the last list's
// in them, 400 ms. ok is false when the list must be made whole.
func (p *Poller) withAdded(topo *model.Topology, added, on []string) (out []string, ok bool) {
	p.mu.Lock()
	bumps := p.qver - p.qcacheVer
	p.mu.Unlock()
	if p.qcache == nil || p.qcacheTop != topo || p.qunsure || len(added) == 0 || uint64(len(added)) != bumps {
		return nil, false
	}
	for k, name := range added {
		if o := topo.OwnerOf(keyspace.QueueSlot(name)); o == nil || o.Addr != on[k] || o.Role != model.RolePrimary {
			return nil, false
		}
	}
	added = slices.Compact(slices.Sorted(slices.Values(added)))
	last, lastSlots := p.qcache, p.slots.of(p.qcache)
	out = make([]string, 0, len(last)+len(added))
	var slots []uint16
	if lastSlots != nil {
		slots = make([]uint16, 0, cap(out))
	}
	from := 0
	for _, name := range added {
		at, found := slices.BinarySearch(last[from:], name)
		out = append(out, last[from:from+at]...)
		if lastSlots != nil {
			slots = append(slots, lastSlots[from:from+at]...)
		}
		from += at
		if !found {
			out = append(out, name)
			slots = append(slots, keyspace.QueueSlot(name))
		}
	}
	out = append(out, last[from:]...)
	if lastSlots != nil {
		p.slots.set(out, append(slots, lastSlots[from:]...))
	}
	return out, true
}

// listSlots is the slot of each queue of a list, kept with the list it is
// of, so that a plan made again for a list with a queue more (withAdded)
// hashes that queue's name alone, not a million (QueueSlot validates and
// hashes each: 70 ms a plan at a million).
type listSlots struct {
	list  []string
	slots []uint16
}

// of is the slots of list, when they are kept for that very list.
func (ls *listSlots) of(list []string) []uint16 {
	if len(list) == 0 || !sameList(ls.list, list) {
		return nil
	}
	return ls.slots
}

func (ls *listSlots) set(list []string, slots []uint16) { ls.list, ls.slots = list, slots }

// slotsOf is the slot of each queue of list: kept, or hashed and kept.
func (p *Poller) slotsOf(list []string) []uint16 {
	if s := p.slots.of(list); s != nil {
		return s
	}
	s := make([]uint16, len(list))
	for i, q := range list {
		s[i] = keyspace.QueueSlot(q)
	}
	p.slots.set(list, s)
	return s
}
