package poller

import (
	"errors"

	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// redirected lists the batches that met MOVED or ASK.
func (p *Poller) redirected(results []nodeResult) []redirect {
	var out []redirect
	for ri := range results {
		r := &results[ri]
		for bi, err := range r.batchErr {
			ve, ok := valkey.IsValkeyErr(err)
			if !ok {
				continue
			}
			if addr, ok := ve.IsAsk(); ok {
				out = append(out, redirect{b: r.plan.batches[bi], ask: addr})
			} else if _, ok := ve.IsMoved(); ok {
				out = append(out, redirect{b: r.plan.batches[bi]})
			} else {
				continue
			}
			r.batchErr[bi] = errRedirected
		}
	}
	if len(out) > 0 {
		p.kickTopology()
	}
	return out
}

var errRedirected = errors.New("redirected")

type redirect struct {
	b   batch
	ask string // ASK target; "" for MOVED
}

// replan routes redirected batches: ASK to the importing node with ASKING
// first, MOVED to the slot's owner in the fresh topology.
func (p *Poller) replan(topo *model.Topology, clients map[string]valkey.Client, redo []redirect) []nodePlan {
	plans := map[string]*nodePlan{}
	for _, r := range redo {
		b := r.b
		addr := r.ask
		b.asking = addr != ""
		if addr == "" {
			o := topo.OwnerOf(b.slot)
			if o == nil {
				continue
			}
			addr, b.owner = o.Addr, o.Addr
		}
		np := plans[addr]
		if np == nil {
			np = &nodePlan{addr: addr}
			plans[addr] = np
		}
		np.batches = append(np.batches, b)
	}
	out := make([]nodePlan, 0, len(plans))
	for _, np := range plans {
		out = append(out, *np)
	}
	return out
}
