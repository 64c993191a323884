package poller

import (
	"context"
	"fmt"
	"sync"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
)

// Tracker knows what changed on one primary: a dedicated connection with
// CLIENT TRACKING ON BCAST PREFIX emq: receives an invalidation for every
// EchoMQ key written there, and the key's slot is marked dirty. What it
// cannot vouch for is all dirty: at the start, after a flush (an
// invalidation of every key), and for good once the connection is lost.
// It is the first part of change-driven polling (issue 16): a poll may
// read only the slots taken from here, plus those whose state moves with
// time alone.
type Tracker struct {
	addr string
	id   int64 // the tracking connection's CLIENT ID
	dc   valkey.DedicatedClient
	// own and hold: a tracker on a client of its own (StartHeldTracker),
	// its reads held between Syncs; nil for one on a node's client
	own  valkey.Client
	hold *Hold

	mu    sync.Mutex
	dirty map[uint16]struct{}
	queue map[string]struct{} // the queues (hashtags) of the keys written
	// keyed: the queues whose pending, active or schedule set was written
	// (a key of the grammar's, what discovery lists a queue by)
	keyed map[string]struct{}
	keys  int64 // keys invalidated since the start
	all   bool
	lost  error // why tracking ended; nil while it runs
}

// StartTracker opens the tracking connection on nc, a client of one node.
// A server that refuses (an ACL without client|tracking, no RESP3, the
// embedded demo server) is an error: the caller polls in full.
func StartTracker(ctx context.Context, nc valkey.Client, addr string) (*Tracker, error) {
	return startTracker(ctx, nc, addr, nil)
}

// StartHeldTracker opens the tracking connection on a client of its own,
// made by dial, whose pushes are read at each Sync and not as they come
// (hold.go): a write to the node no longer wakes the process.
func StartHeldTracker(ctx context.Context, dial func(addr string, h *Hold) (valkey.Client, error), addr string) (*Tracker, error) {
	h := new(Hold)
	own, err := dial(addr, h)
	if err != nil {
		return nil, err
	}
	t, err := startTracker(ctx, own, addr, h)
	if err != nil {
		own.Close()
		return nil, err
	}
	t.own = own
	return t, nil
}

// startTracker starts tracking on a dedicated connection of nc; h, when
// not nil, is held once tracking is on.
func startTracker(ctx context.Context, nc valkey.Client, addr string, h *Hold) (*Tracker, error) {
	// the connection is closed, never handed back to the pool: valkey-go
	// would turn tracking off on it first and wait for the answer without
	// a bound, and a tracker is closed when its node stopped answering
	dc, _ := nc.Dedicate()
	t := &Tracker{addr: addr, dc: dc, hold: h, dirty: map[uint16]struct{}{}, queue: map[string]struct{}{}, keyed: map[string]struct{}{}, all: true}
	done := dc.SetOnInvalidations(t.invalidated)
	if done == nil {
		dc.Close()
		return nil, fmt.Errorf("%s: no invalidation hook", addr)
	}
	id, err := dc.Do(ctx, dc.B().ClientId().Build()).AsInt64()
	if err == nil {
		err = dc.Do(ctx, dc.B().ClientTracking().On().Prefix().Prefix(keyspace.ScanPattern[:len(keyspace.ScanPattern)-1]).Bcast().Build()).Error()
	}
	if err != nil {
		dc.Close()
		return nil, fmt.Errorf("%s: CLIENT TRACKING refused: %w", addr, err)
	}
	t.id = id
	if h != nil {
		h.hold()
	}
	go func() {
		err, ok := <-done
		if !ok || err == nil {
			err = fmt.Errorf("the tracking connection to %s closed", addr)
		}
		t.mu.Lock()
		t.lost, t.all = err, true
		t.mu.Unlock()
	}()
	return t, nil
}

// invalidated takes one push: keys written, or nil for a flush.
func (t *Tracker) invalidated(keys []valkey.ValkeyMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if keys == nil {
		t.all = true
		return
	}
	t.keys += int64(len(keys))
	for _, k := range keys {
		if s, err := k.ToString(); err == nil {
			t.dirty[keyspace.Slot(s)] = struct{}{}
			if q := keyspace.Hashtag(s); q != "" {
				t.queue[q] = struct{}{}
				if _, seen := t.keyed[q]; !seen && isSetKey(s) {
					t.keyed[q] = struct{}{}
				}
			}
		}
	}
}

// Take returns the slots changed since the last Take, or all when the
// tracker cannot vouch for any; alive is false once tracking is lost.
func (t *Tracker) Take() (slots []uint16, all, alive bool) {
	w := t.takeWritten()
	return w.slots, w.all, w.alive
}

// written is what a Tracker saw written since the last take.
type written struct {
	slots []uint16
	// queues: every EchoMQ key of a queue carries its name as the
	// hashtag, a job row's too; keyed: those of them whose pending, active
	// or schedule set was written
	queues, keyed []string
	all, alive    bool
}

// takeWritten is Take with the queues written.
func (t *Tracker) takeWritten() written {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := written{all: t.all, alive: t.lost == nil}
	if !w.all {
		// each its own size at once: grown by append, the three were
		// 176 KB of garbage a poll at a million queues (1,000 written)
		w.slots = make([]uint16, 0, len(t.dirty))
		w.queues = make([]string, 0, len(t.queue))
		w.keyed = make([]string, 0, len(t.keyed))
		for s := range t.dirty {
			w.slots = append(w.slots, s)
		}
		for q := range t.queue {
			w.queues = append(w.queues, q)
		}
		for q := range t.keyed {
			w.keyed = append(w.keyed, q)
		}
	}
	clear(t.dirty)
	clear(t.queue)
	clear(t.keyed)
	t.all = !w.alive // a lost tracker stays all dirty
	return w
}

// isSetKey reports whether key is a queue's pending, active or schedule
// set by the grammar (a job row, the meta hash or a foreign key is not).
func isSetKey(key string) bool {
	k, err := keyspace.Parse(key)
	return err == nil && (k.Type == keyspace.TypePending || k.Type == keyspace.TypeActive || k.Type == keyspace.TypeSchedule)
}

// Sync makes every write its node acknowledged before the call visible to
// the next Take: the node sends a write's invalidation (in BCAST mode,
// before the event loop sleeps) ahead of the write's reply to its writer,
// so it is queued on the tracking connection ahead of this PING's reply,
// and valkey-go runs the hook in the connection's reading goroutine before
// it hands the reply over. A tracker that cannot answer in time is lagging:
// the caller treats it as lost. A held tracker's PING is what its
// connection is read for (the pushes held since the last Sync are read
// then, in a few large reads, ahead of its reply).
func (t *Tracker) Sync(ctx context.Context) error {
	return t.dc.Do(ctx, t.dc.B().Ping().Build()).Error()
}

// Keys is how many keys the node said were written since the start: what
// tracking costs the server is about that many invalidations.
func (t *Tracker) Keys() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.keys
}

// Alive reports whether tracking still runs.
func (t *Tracker) Alive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lost == nil
}

// ID is the tracking connection's client id on its node.
func (t *Tracker) ID() int64 { return t.id }

// Close ends tracking and closes its connection (and its own client).
func (t *Tracker) Close() {
	t.dc.Close()
	if t.own != nil {
		t.own.Close()
	}
}
