package poller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// nodeState is what the poller remembers of one node between polls.
type nodeState struct {
	loaded  bool          // the snapshot script is loaded
	argTime bool          // the server refuses TIME in read-only scripts (the embedded server)
	noGroup bool          // the server refused a grouped call: each slot its own script (group.go)
	offset  time.Duration // server clock minus local clock
	// offsetErr: how far offset may be ahead of the truth (half the round
	// trip it was measured over: the server read its clock somewhere in it)
	offsetErr time.Duration
	server    string // "redis 7.0.15", "valkey 8.1.0"; "" until INFO answered
	cursor    string // SCAN cursor of the current pass
	// discovery's pace: the next COUNT, the server time of the last and the
	// slowest SCAN page, and when the current pass started
	scanCount         int
	scanTook, scanMax time.Duration
	passStart         time.Time
	// server time spent on the current pass, and on the last whole one
	passCost, lastPassCost time.Duration
	// the queues of the current pass and of the last complete one (nil
	// before one is): sets of ids in the poller's names (a name held as a
	// slice of its key kept the whole reply string alive)
	passSeen *idSet
	known    *idSet
	knownAt  time.Time // when that pass started
	// seenKnown: how many of known the current pass has found so far;
	// shrankAt: when a whole pass last ended without some queue of the
	// one before it (deleted, or its slot moved: only a topology read
	// after that can tell, see queues)
	seenKnown int
	shrankAt  time.Time
	// foreign keys (key → reason) of the current and the last complete pass
	passForeign, foreign map[string]string
	passes               int
	// listed: a whole pass was done when this poll's queue list was made,
	// so the list holds every queue of the node (a pass that ends during
	// the poll lists its last page's queues at the next one)
	listed bool
	// how far the pass has gone: keys visited (its pages' COUNTs) of the node's (DBSIZE)
	passWalked, keys int64
	trackedSince     time.Time // since when each poll's take vouched for its writes (zero: not now; vouch)
	lastGood         time.Time
	latency          time.Duration
	err              string
	busy             atomic.Bool // a pipeline or probe sent to it has not returned
	timedOut         bool        // it gave no answer in time at the last poll it was sent
	answered         atomic.Bool // a background probe got an answer since
	cost             nodeCost    // what its reads cost it (budget.go)
	// its slots' load (slotstats.go): the last read, and its figures
	slots     slotStatsState
	slotKeys  map[uint16]int64
	slotRates map[uint16][2]float64 // µs of CPU and bytes a second
}

// Poller takes snapshots. Poll is not safe for concurrent use: a poll is
// started only when the previous one returned.
type Poller struct {
	c   valkey.Client
	opt Options

	load *model.SlotLoad // the servers' load per slot, as last read (slotstats.go)
	// movedAt is when each slot's owner last changed (under mu), and
	// polled the last set of queues polled: a queue of a moved slot is
	// kept until its new owner has been walked since the move
	movedAt [keyspace.SlotCount]time.Time
	polled  []string

	mu       sync.Mutex
	topo     *model.Topology
	topoAt   time.Time
	topoErr  error
	detail   map[string]bool
	dver     uint64 // bumped by SetDetail
	window   time.Duration
	kick     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	dialed map[string]valkey.Client // clients of our own, from Options.Dial

	// the queue set and the plan are rebuilt only when what they derive
	// from changed: a poll of an unchanged keyspace redoes none of it
	qver uint64 // bumped when discovery changes the queue set
	// planQueues is how many queues the cached plan holds (PinScriptsUpTo)
	planQueues int
	// hist and totals are the past of every queue and of the totals, from
	// the polls alone
	hist, totals *model.History
	// discoverAll: DiscoverAll is running, so every poll walks a slice of
	// each node's pass in measured pages, not the first pass alone
	discoverAll bool
	// walkDone: --once's reading poll has begun; discovery is over, its
	// name sets let go, and the queue list is the one last made
	walkDone   bool
	qcache     []string
	qunsure    bool      // the list kept queues no pass found (queues): made again once a topology is read
	qunsureAt  time.Time // when the topology in hand then was read (under mu)
	qcacheVer  uint64
	qcacheTop  *model.Topology
	plans      []nodePlan
	planKey    planKey
	planDver   uint64        // the detail set the plan's batches say
	planWindow time.Duration // the window their scripts were built for
	inDetail   []*batch      // the plan's batches that read a queue in detail
	nodes      map[string]*nodeState
	names      names            // every name discovery found: the nodes' sets index it
	store      model.QueueStore // the readings' queues, in slabs
	prev       *model.Snapshot  // the last snapshot: stale queues fall back on it
	// prevAt: each place of this poll's list (list), the place of its
	// queue in prev's (-1: none), made when the lists differ (prevOf)
	prevAt  []int32
	list    []string
	last    lastAssembly // what it was assembled from and learnt
	version string
	slots   listSlots // the slots of the queues of a list (slotsOf)
	ch      changes   // what change-driven polling keeps between polls
}

// New makes a poller on c. Call Close when done.
func New(c valkey.Client, opt Options) *Poller {
	opt.defaults()
	return &Poller{c: c, opt: opt, detail: map[string]bool{}, window: opt.Window,
		kick: make(chan struct{}, 1), stop: make(chan struct{}),
		nodes: map[string]*nodeState{}, dialed: map[string]valkey.Client{},
		hist: model.NewHistory(), totals: model.NewHistory()}
}

// Close stops the topology refresher; the client is the caller's.
func (p *Poller) Close() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.wg.Wait()
	p.closeTrackers()
	for _, c := range p.dialed {
		c.Close()
	}
}

// clients are the per-node clients: valkey-go's, and, for nodes of the
// topology it does not hand out, ones of our own.
func (p *Poller) clients(topo *model.Topology) map[string]valkey.Client {
	cs := p.c.Nodes()
	if p.opt.Dial == nil {
		return cs
	}
	for _, n := range topo.Nodes {
		if _, ok := cs[n.Addr]; ok {
			continue
		}
		c, ok := p.dialed[n.Addr]
		if !ok {
			var err error
			if c, err = p.opt.Dial(n.Addr); err != nil {
				continue // reported as "no connection" by run
			}
			p.dialed[n.Addr] = c
		}
		cs[n.Addr] = c
	}
	return cs
}

// SetDetail names the queues whose job lists and histogram are read.
// The same names again (the dashboard asks again when a poll read its
// selection without detail) change nothing.
func (p *Poller) SetDetail(queues ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := map[string]bool{}
	for _, q := range queues {
		d[q] = true
	}
	if maps.Equal(d, p.detail) {
		return
	}
	p.detail = d
	p.dver++
}

// SetWindow sets the span of the lease timeline, now±w.
func (p *Poller) SetWindow(w time.Duration) {
	if w <= 0 {
		return
	}
	p.mu.Lock()
	p.window = w
	p.mu.Unlock()
}

// Edges are the bucket edges of the timeline, ms relative to now.
func (p *Poller) Edges() []int64 {
	p.mu.Lock()
	w := p.window
	p.mu.Unlock()
	b := p.opt.Buckets
	out := make([]int64, 0, 2*b+1)
	for i := -b; i <= b; i++ {
		out = append(out, int64(i)*w.Milliseconds()/int64(b))
	}
	return out
}

// ErrUnreachable is returned when no node could be reached at all.
var ErrUnreachable = errors.New("no node could be reached")

// Poll takes one snapshot: one pipeline per node, the nodes in parallel.
func (p *Poller) Poll(ctx context.Context) (*model.Snapshot, error) {
	start := time.Now()
	p.mu.Lock()
	first := p.topo == nil
	p.mu.Unlock()
	if first {
		p.refreshTopology(ctx, true)
		p.mu.Lock()
		err := p.topoErr
		p.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		p.wg.Add(1)
		go p.refresher()
	}
	p.mu.Lock()
	topo := p.topo
	p.mu.Unlock()

	clients := p.clients(topo)
	queues := p.queues(topo)
	if !sameList(queues, p.list) {
		p.prevAt = nil // another list: its places in prev's are made again when asked
	}
	p.list = queues
	for _, st := range p.nodes {
		st.listed = st.passes > 0
	}
	if p.opt.Once && !p.discoverAll && !p.walkDone {
		// --once's reading poll: DiscoverAll walked every node, so this
		// poll walks none, and the name sets are let go (the list holds
		// the names): a tenth of the peak at 100,000 queues
		p.walkDone = true
		for _, st := range p.nodes {
			st.known, st.passSeen, st.seenKnown = nil, nil, 0
		}
		p.names.mu.Lock()
		p.names.t = nil // the list's strings keep the names' bytes
		p.names.mu.Unlock()
	}
	plans := p.changed(ctx, topo, queues, p.cachedPlan(topo, queues, clients), clients)
	if p.discoverAll && p.opt.Once {
		plans = scanOnly(plans)
	}
	results := p.run(ctx, plans, clients)
	if redo := p.redirected(results); len(redo) > 0 {
		// the slots moved under us: read the topology again and ask the
		// new owners (or the ASK targets) in one more round trip
		p.refreshTopology(ctx, true)
		p.mu.Lock()
		topo = p.topo
		p.mu.Unlock()
		clients = p.clients(topo)
		results = append(results, p.run(ctx, p.replan(topo, clients, redo), clients)...)
	}
	p.settle(results)
	snap := p.assemble(topo, queues, results)
	if p.walkDone {
		// --once has its snapshot: the plan (a tenth of the heap) is
		// let go before the snapshot is written out
		p.plans, p.inDetail = nil, nil
	}
	if topo.Cluster {
		p.slotStats(ctx, topo, clients, snap)
	}
	p.budget(snap)
	snap.Poll.Duration = time.Since(start)
	snap.TakenAt = time.Now()
	if !p.opt.Once {
		p.record(snap)
		// the queues of slabs mostly let go move to new ones (the list is
		// walked once a quarter of its length was read anew)
		snap.Queues = p.store.Compact(snap.Queues)
	}
	return snap, nil
}

// scanOnly is plans with no batch: the nodes are sent their discovery
// pages and no script.
func scanOnly(plans []nodePlan) []nodePlan {
	out := make([]nodePlan, len(plans))
	for i, np := range plans {
		out[i] = np
		out[i].batches = nil
	}
	return out
}

// DiscoverAll runs discovery until every primary finished a full SCAN pass
// (for --once), bounded by ctx.
func (p *Poller) DiscoverAll(ctx context.Context) error {
	p.discoverAll = true
	defer func() { p.discoverAll = false }()
	for {
		snap, err := p.Poll(ctx)
		if err != nil {
			return err
		}
		if snap.DiscoveryComplete || len(p.opt.Pinned) > 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		up, total := snap.NodesUp()
		if up < total && p.passComplete(snap, true) {
			return nil // the nodes that answered are done; the rest are down
		}
	}
}

// passComplete reports whether every answering primary has finished a pass.
func (p *Poller) passComplete(snap *model.Snapshot, answeringOnly bool) bool {
	for _, n := range snap.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		if answeringOnly && !n.Up() {
			continue
		}
		if st := p.nodes[n.Addr]; st == nil || !st.listed {
			return false
		}
	}
	return true
}

func (p *Poller) state(addr string) *nodeState {
	st := p.nodes[addr]
	if st == nil {
		st = &nodeState{passSeen: &idSet{}, passForeign: map[string]string{}}
		p.mu.Lock() // the topology refresher reads the map
		p.nodes[addr] = st
		p.mu.Unlock()
	}
	return st
}

// planKey is what a plan derives from.
type planKey struct {
	topo *model.Topology
	qver uint64
}

// cachedPlan reuses the last plan when the topology and the queue set are
// the same (with --replicas the choice of node also depends on the
// replicas' state, so it is planned afresh). A new detail set or window
// touches the batches of the queues in detail alone (redetail): the
// operator moving the selection through a million queues replanned every
// queue, 1.3 s of CPU a move.
func (p *Poller) cachedPlan(topo *model.Topology, queues []string, clients map[string]valkey.Client) []nodePlan {
	p.mu.Lock()
	k := planKey{topo: topo, qver: p.qver}
	detail, dver, window := p.detail, p.dver, p.window
	p.mu.Unlock()
	if !p.opt.Replicas && p.plans != nil && k == p.planKey {
		if dver != p.planDver || window != p.planWindow {
			p.redetail(detail)
		}
	} else {
		old := p.plans
		p.plans, p.planKey, p.planQueues = p.plan(topo, queues, clients, detail), k, len(queues)
		p.inDetail = inDetail(p.plans)
		keepSettled(old, p.plans)
	}
	p.planDver, p.planWindow = dver, window
	return p.plans
}
