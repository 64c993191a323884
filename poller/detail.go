package poller

import (
	"slices"

	"github.com/echomq/emqtop/keyspace"
)

// inDetail lists the batches of a plan that read a queue in detail (its
// job lists and the lease histogram): the ones a new detail set or window
// may change.
func inDetail(plans []nodePlan) []*batch {
	var out []*batch
	for pi := range plans {
		for bi := range plans[pi].batches {
			if b := &plans[pi].batches[bi]; b.hist {
				out = append(out, b)
			}
		}
	}
	return out
}

// redetail moves the plan to a new detail set (or window): the batches of
// the queues that were in detail and of those now are said again, their
// scripts to be built anew, and read at the next poll; no other batch is
// looked at. A queue's batch is found by its slot.
func (p *Poller) redetail(detail map[string]bool) {
	touched := p.inDetail
	for q := range detail {
		if b := p.batchOf(q); b != nil && !slices.Contains(touched, b) {
			touched = append(touched, b)
		}
	}
	p.inDetail = nil
	for _, b := range touched {
		b.hist = false
		for k, q := range b.queues {
			b.detail[k] = p.opt.DetailAll || detail[q]
			b.hist = b.hist || detail[q]
		}
		b.cmd, b.settled = nil, false
		if b.hist {
			p.inDetail = append(p.inDetail, b)
		}
	}
}

// batchOf is the plan's batch that reads queue q, nil when none does.
func (p *Poller) batchOf(q string) *batch {
	s := keyspace.QueueSlot(q)
	for pi := range p.plans {
		for bi := range p.plans[pi].batches {
			if b := &p.plans[pi].batches[bi]; b.slot == s && slices.Contains(b.queues, q) {
				return b
			}
		}
	}
	return nil
}
