package poller

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// Tracking is retried this long after a server refused it, and after a
// start that failed for another reason (the node down, say).
const (
	retryRefused = time.Minute
	retryFailed  = 5 * time.Second
)

// mostChanged: when more than this share of the batches needs reading, the
// poll reads all of them (the plan's scripts are built once, the filtered
// ones are built each poll).
const mostChanged = 0.75

// tracking is one primary's tracker, or why it has none.
type tracking struct {
	t        *Tracker
	starting bool
	why      string // why the node is read in full
	retryAt  time.Time
	pause    time.Duration // how long tracking was last turned off for
}

// changes is what change-driven polling keeps between polls.
type changes struct {
	mu       sync.Mutex // trackers: the starters write from their goroutines
	trackers map[string]*tracking
	closed   bool

	need      [keyspace.SlotCount]uint8
	needQ     map[string]struct{}        // queues written to, not yet read since
	owner     [keyspace.SlotCount]string // each slot's owner at the last poll
	ownerTopo *model.Topology

	sweepPos float64   // the next slot of the sweep, with its fraction
	sweepAt  time.Time // when the sweep last moved on
	stretch  int       // the budget's: the sweep takes this many times Sweep

	// what the last filter chose, for assemble
	full    map[string]string // nodes read in full, and why
	skip    []bool            // queues (by poll index) not read: their reading carries over
	read    string
	why     map[string]int
	sweepBy map[string]int // the sweep's scripts by node

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
	case p.opt.DetailAll:
		return "--once reads everything"
	}
	return ""
}

// changed chooses what this poll reads: the plans with the batches that
// need reading. It records in p.ch which queues carry over and why.
func (p *Poller) changed(ctx context.Context, topo *model.Topology, queues []string, plans []nodePlan, clients map[string]valkey.Client) []nodePlan {
	ch := &p.ch
	ch.read, ch.why, ch.skip, ch.full, ch.sweepBy = model.ReadFull, map[string]int{}, nil, map[string]string{}, map[string]int{}
	primaries := topo.Primaries()
	if why := p.fullWhy(); why != "" {
		for _, i := range primaries {
			ch.full[topo.Nodes[i].Addr] = why
		}
		for _, np := range plans {
			ch.why[model.ReadFull] += len(np.batches)
		}
		return plans
	}
	now := time.Now()
	p.moved(topo)
	p.track(ctx, topo, clients, now)
	p.sweep(now)

	skip := make([]bool, len(queues))
	out := make([]nodePlan, len(plans))
	total, due := 0, 0
	for pi, np := range plans {
		out[pi] = np
		out[pi].batches = nil
		nowMs := now.Add(p.state(np.addr).offset).UnixMilli()
		nodeQueues, changedQueues := 0, 0
		for _, b := range np.batches {
			total++
			nodeQueues += len(b.queues)
			r, part := p.reason(b, ch.full[b.owner] != "", nowMs)
			if r == model.ReadDirty || r == model.ReadDeadline {
				changedQueues += len(b.queues)
				if part != nil {
					changedQueues += len(part) - len(b.queues)
				}
			}
			if r == "" {
				for _, i := range b.idx {
					skip[i] = true
				}
				continue
			}
			due++
			ch.why[r]++
			if r == model.ReadSweep {
				ch.sweepBy[np.addr]++
			}
			if part != nil {
				b = b.part(part, skip)
			}
			out[pi].batches = append(out[pi].batches, b)
		}
		if np.primary {
			p.busyNode(np.addr, changedQueues, nodeQueues, len(np.batches)-len(out[pi].batches))
		}
	}
	if float64(due) > mostChanged*float64(total) {
		// most of it changed: read it all with the plan's built scripts
		ch.why, ch.sweepBy = map[string]int{model.ReadFull: total}, map[string]int{}
		return plans
	}
	ch.read, ch.skip = "changes", skip
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
		for k, i := range b.idx {
			if _, ok := p.prevOf(i, b.queues[k]); ok {
				return model.ReadUnproven, nil
			}
		}
		return model.ReadNew, nil
	}
	for k, i := range b.idx {
		r := ""
		_, written := ch.needQ[b.queues[k]]
		q, ok := p.prevOf(i, b.queues[k])
		switch {
		case written:
			r = model.ReadDirty
		case b.detail[k]:
			r = model.ReadDetail
		case !ok || q.Stale:
			r = model.ReadNew
		case q.NextDeadlineMs > 0 && q.NextDeadlineMs <= nowMs:
			r = model.ReadDeadline
		default:
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

// part is the batch of the queues at ks only; the others are marked in
// skip, their readings carried over.
func (b batch) part(ks []int, skip []bool) batch {
	out := batch{slot: b.slot, owner: b.owner, hist: b.hist}
	in := 0
	for k := range b.queues {
		if in < len(ks) && ks[in] == k {
			in++
			out.queues = append(out.queues, b.queues[k])
			out.idx = append(out.idx, b.idx[k])
			out.keys = append(out.keys, b.keys[k])
			out.detail = append(out.detail, b.detail[k])
			continue
		}
		skip[b.idx[k]] = true
	}
	return out
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

// sweep moves the sweep on by the share of the slots that the time since
// the last poll is of Sweep, and marks them.
func (p *Poller) sweep(now time.Time) {
	ch := &p.ch
	if !ch.sweepAt.IsZero() {
		adv := float64(keyspace.SlotCount) * float64(now.Sub(ch.sweepAt)) / float64(p.opt.Sweep*time.Duration(max(1, ch.stretch)))
		end := ch.sweepPos + min(adv, keyspace.SlotCount)
		for s := int(ch.sweepPos); s < int(end); s++ {
			ch.mark(uint16(s%keyspace.SlotCount), needSweep)
		}
		ch.sweepPos = end
		for ch.sweepPos >= keyspace.SlotCount {
			ch.sweepPos -= keyspace.SlotCount
		}
	}
	ch.sweepAt = now
}

// track keeps one tracker on every primary: it drops those of nodes that
// are no longer primaries, starts missing ones in the background, makes
// sure the live ones have every acknowledged write (Sync) and takes their
// changes. A primary without a live tracker is read in full.
func (p *Poller) track(ctx context.Context, topo *model.Topology, clients map[string]valkey.Client, now time.Time) {
	ch := &p.ch
	prim := map[string]bool{}
	for _, i := range topo.Primaries() {
		prim[topo.Nodes[i].Addr] = true
	}
	ch.mu.Lock()
	if ch.trackers == nil {
		ch.trackers, ch.needQ = map[string]*tracking{}, map[string]struct{}{}
	}
	for addr, tr := range ch.trackers {
		if !prim[addr] && !tr.starting {
			if tr.t != nil {
				go tr.t.Close()
			}
			delete(ch.trackers, addr)
		}
	}
	live := map[string]*Tracker{}
	for addr := range prim {
		tr := ch.trackers[addr]
		if tr == nil {
			tr = &tracking{why: "tracking is starting"}
			ch.trackers[addr] = tr
		}
		if tr.t != nil && !tr.t.Alive() {
			go tr.t.Close()
			tr.t, tr.why, tr.retryAt = nil, "the tracking connection was lost; starting it again", time.Time{}
		}
		if tr.t == nil && !tr.starting && !now.Before(tr.retryAt) && clients[addr] != nil {
			tr.starting = true
			go p.startTracking(clients[addr], addr, tr)
		}
		if tr.t != nil {
			live[addr] = tr.t
		} else {
			ch.full[addr] = tr.why
		}
	}
	ch.mu.Unlock()

	// Sync them in parallel, each bounded; one that cannot answer lags
	var wg sync.WaitGroup
	var mu sync.Mutex
	lag := map[string]error{}
	for addr, t := range live {
		if p.state(addr).timedOut {
			mu.Lock()
			lag[addr] = fmt.Errorf("its node gave no answer in time")
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, p.opt.Timeout)
			defer cancel()
			if err := t.Sync(sctx); err != nil {
				mu.Lock()
				lag[addr] = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	ch.mu.Lock()
	for addr, err := range lag {
		tr := ch.trackers[addr]
		go tr.t.Close()
		tr.t, tr.why, tr.retryAt = nil, "tracking lagged ("+errText(err, p.opt.Timeout)+"); starting it again", time.Time{}
		delete(live, addr)
		ch.full[addr] = tr.why
	}
	ch.mu.Unlock()
	for addr, t := range live {
		_, queues, all, alive := t.TakeQueues()
		if all || !alive {
			ch.markNode(addr, needUnproven)
			continue
		}
		for _, q := range queues {
			ch.needQ[q] = struct{}{}
		}
	}
}

// startTracking starts a tracker on one primary in the background: a
// refusal is retried in a minute, another failure in a few seconds.
func (p *Poller) startTracking(nc valkey.Client, addr string, tr *tracking) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opt.Timeout)
	t, err := StartTracker(ctx, nc, addr)
	cancel()
	ch := &p.ch
	ch.mu.Lock()
	defer ch.mu.Unlock()
	tr.starting = false
	if err != nil {
		tr.why, tr.retryAt = "no tracking: "+errText(err, p.opt.Timeout), time.Now().Add(retryFailed)
		var ve *valkey.ValkeyError
		if errors.As(err, &ve) {
			tr.why, tr.retryAt = "tracking refused ("+ve.Error()+")", time.Now().Add(retryRefused)
		}
		return
	}
	if ch.closed {
		t.Close()
		return
	}
	tr.t, tr.why = t, ""
}

// Tracking pays for itself only while it saves more than it costs: the
// server sends an invalidation for every key written (about invalidationUs
// of its time each, measured: 29µs an enqueue of two keys at 1,000 a
// second), and it saves the scripts of the slots not read. A node where it
// costs more, or where more than half the queues change at every poll, for
// busyPolls polls in a row is read in full with its tracking off, for
// trackingPause, doubled each time it happens again (up to 16 times) until
// quietPolls polls in a row were not busy.
const (
	busyPolls      = 10
	quietPolls     = 60
	invalidationUs = 15
)

var trackingPause = time.Minute // a variable: the tests shorten it

// busyNode counts a node's busy polls and turns its tracking off when they
// are enough: changed of its total queues were written or expired, and
// saved of its scripts were not sent.
func (p *Poller) busyNode(addr string, changed, total, saved int) {
	ch := &p.ch
	if ch.busy == nil {
		ch.busy, ch.quiet, ch.keysAt = map[string]int{}, map[string]int{}, map[string]int64{}
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	tr := ch.trackers[addr]
	if tr == nil || tr.t == nil {
		return
	}
	keys := tr.t.Keys()
	written := keys - ch.keysAt[addr]
	ch.keysAt[addr] = keys
	costly := false
	if us := p.state(addr).cost.usPerScript; us > 0 && written > 0 {
		costly = float64(written*invalidationUs) > float64(saved)*us
	}
	if !costly && (total < 8 || 2*changed <= total) {
		ch.busy[addr] = 0
		if ch.quiet[addr]++; ch.quiet[addr] >= quietPolls {
			tr.pause = 0
		}
		return
	}
	ch.quiet[addr] = 0
	if ch.busy[addr]++; ch.busy[addr] < busyPolls {
		return
	}
	ch.busy[addr] = 0
	go tr.t.Close()
	tr.pause = min(max(trackingPause, 2*tr.pause), 16*trackingPause)
	tr.t, tr.retryAt = nil, time.Now().Add(tr.pause)
	tr.why = "tracking costs the server more than it saves here (most queues change at every poll): off for " + shortDuration(tr.pause)
}

// shortDuration is d without its zero tail: 1m, 16m, 1h, 1m30s, 300ms.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
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
				for _, q := range b.queues {
					delete(ch.needQ, q)
				}
			}
			continue
		}
		for bi, b := range r.plan.batches {
			for _, q := range b.queues {
				delete(ch.needQ, q) // read, or its slot is marked below
			}
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

// closeTrackers ends every tracker; a start still running closes its own.
func (p *Poller) closeTrackers() {
	ch := &p.ch
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.closed = true
	for _, tr := range ch.trackers {
		if tr.t != nil {
			go tr.t.Close()
		}
	}
}
