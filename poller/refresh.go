package poller

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/echomq/emqtop/model"
)

// refreshTopology reads the topology now, asking the nodes that answered
// the last poll first, each within the per-node timeout. In a poll (inPoll)
// the whole read is bounded by one timeout and waited for here, not in
// valkey-go (see send): the poll must come back. The background refresher
// may take longer, one timeout per node asked, so that a slow but
// answering cluster still gets its new topology.
func (p *Poller) refreshTopology(ctx context.Context, inPoll bool) {
	down := map[string]bool{}
	p.mu.Lock()
	for a, st := range p.nodes {
		if st.err != "" {
			down[a] = true
		}
	}
	p.mu.Unlock()
	var t *model.Topology
	var err error
	if inPoll {
		ctx, cancel := context.WithTimeout(ctx, p.opt.Timeout)
		defer cancel()
		type answer struct {
			t   *model.Topology
			err error
		}
		done := make(chan answer, 1)
		go func() {
			t, err := readTopology(ctx, p.c, down, p.opt.Timeout)
			done <- answer{t, err}
		}()
		select {
		case a := <-done:
			t, err = a.t, a.err
		case <-ctx.Done():
			err = fmt.Errorf("no node answered the topology within %v", p.opt.Timeout)
		}
	} else {
		t, err = readTopology(ctx, p.c, down, p.opt.Timeout)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.topoErr = err
	if err == nil {
		now := time.Now()
		if old := p.topo; old != nil { // the slots whose owner changed, and when
			for s := range t.Owner {
				oa, na := old.OwnerOf(uint16(s)), t.OwnerOf(uint16(s))
				if (oa == nil) != (na == nil) || (oa != nil && oa.Addr != na.Addr) {
					p.movedAt[s] = now
				}
			}
		}
		if old := p.topo; old != nil && reflect.DeepEqual(*old, *t) {
			// the same topology keeps its pointer: what derives from it
			// (the queue list, the plan, the slots' owners) is kept; a
			// new one every refresh rebuilt them every 5 s, 0.7 s of a
			// poll at a million queues
			t = old
		}
		p.topo, p.topoAt = t, now
	}
}

// kickTopology asks the refresher for a new topology at once.
func (p *Poller) kickTopology() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *Poller) refresher() {
	defer p.wg.Done()
	t := time.NewTicker(p.opt.TopologyEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		case <-p.kick:
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			select {
			case <-p.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		p.refreshTopology(ctx, false)
		cancel()
	}
}
