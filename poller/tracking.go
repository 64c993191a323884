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

// The trackers of change-driven polling (change.go): one a primary,
// started in the background, synced before each poll, turned off where
// they cost more than they save.

// Tracking is retried this long after a server refused it, and after a
// start that failed for another reason (the node down, say).
const (
	retryRefused = time.Minute
	retryFailed  = 5 * time.Second
)

// tracking is one primary's tracker, or why it has none.
type tracking struct {
	t        *Tracker
	starting bool
	why      string // why the node is read in full
	retryAt  time.Time
	pause    time.Duration // how long tracking was last turned off for
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
		ch.trackers, ch.needQ = map[string]*tracking{}, map[uint16][]string{}
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
	vouched := map[string]bool{}
	for addr, t := range live {
		w := t.takeWritten()
		if w.all || !w.alive {
			ch.markNode(addr, needUnproven)
			continue
		}
		vouched[addr] = true
		p.listWritten(addr, w.keyed)
		for _, q := range w.queues {
			s := keyspace.QueueSlot(q)
			if !hasName(ch.needQ[s], q) {
				ch.needQ[s] = append(ch.needQ[s], q)
			}
			ch.dirty[s] = true
		}
	}
	p.vouch(vouched, now)
}

// vouch keeps each node's trackedSince: from the first poll whose take
// vouched for its writes, until one does not (nil: none did, a full poll).
func (p *Poller) vouch(vouched map[string]bool, now time.Time) {
	for addr, st := range p.nodes {
		switch {
		case !vouched[addr]:
			st.trackedSince = time.Time{}
		case st.trackedSince.IsZero():
			st.trackedSince = now
		}
	}
}

// startTracking starts a tracker on one primary in the background: a
// refusal is retried in a minute, another failure in a few seconds.
func (p *Poller) startTracking(nc valkey.Client, addr string, tr *tracking) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opt.Timeout)
	var t *Tracker
	var err error
	if p.opt.DialHeld != nil {
		t, err = StartHeldTracker(ctx, p.opt.DialHeld, addr)
	} else {
		t, err = StartTracker(ctx, nc, addr)
	}
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
// Options.TrackingPause, doubled each time it happens again (up to 16 times) until
// quietPolls polls in a row were not busy.
const (
	busyPolls      = 10
	quietPolls     = 60
	invalidationUs = 15
)

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
	if written < 0 { // a new tracker counts from zero
		written = keys
	}
	ch.keysAt[addr] = keys
	costly := false
	// only a measured script time (INFO commandstats): the latency's
	// estimate counts the round trip, and would keep tracking on for it
	if c := &p.state(addr).cost; c.measured && written > 0 {
		costly = float64(written*invalidationUs) > float64(saved)*c.usPerScript
	}
	most := total >= 8 && 2*changed > total
	if !costly && !most {
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
	tr.pause = min(max(p.opt.TrackingPause, 2*tr.pause), 16*p.opt.TrackingPause)
	tr.t, tr.retryAt = nil, time.Now().Add(tr.pause)
	tr.why = "tracking costs more than it saves: off for " + shortDuration(tr.pause)
	if most {
		tr.why = "most queues change at every poll: tracking off for " + shortDuration(tr.pause)
	}
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

// closeTrackers ends every tracker; a start still running closes its own.
func (p *Poller) closeTrackers() {
	ch := &p.ch
	ch.mu.Lock()
	ch.closed = true
	var ts []*Tracker
	for _, tr := range ch.trackers {
		if tr.t != nil {
			ts = append(ts, tr.t)
		}
	}
	ch.mu.Unlock()
	// closed in parallel, and waited for: Close returns once every
	// tracking connection is closed (it returned before, leaving them open)
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Add(1)
		go func() { defer wg.Done(); t.Close() }()
	}
	wg.Wait()
}
