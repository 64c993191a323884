package poller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// batch is one snapshot script: queues of one slot, read from one node.
type batch struct {
	// what a change-driven poll looks at in each of the plan's 16,384
	// batches (changed), first, in one cache line: the loop read two a
	// batch (settled and deadline were last), 1 ms a poll at a million
	slot uint16
	// what change-driven polling knows of the plan's batch between polls
	// (change.go): settled and deadline are kept on the plan's own; home
	// is the plan's own batch, for a copy of it a poll reads
	settled  bool // every queue has a reading that stands, none in detail
	hist     bool // some queue of the batch wants the lease histogram
	asking   bool
	deadline int64  // the first lease of its queues to run out (server ms); 0: none
	owner    string // the primary that owns the slot
	queues   []string
	idx      []int // each queue's index in the poll's queue list
	detail   []bool
	tags     []uint16 // the queues' tags, when a look asked (find)
	// cmd is the batch's script, built once and pinned so that later polls
	// of the same plan send it again without building it
	cmd  *valkey.Completed // send ASKING first (the slot is being imported there)
	home *batch
}

// nodePlan is everything one node is asked in one pipeline.
type nodePlan struct {
	addr    string
	primary bool
	scan    bool
	version bool
	batches []batch
}

// nodeResult is what a node answered.
type nodeResult struct {
	plan     nodePlan
	err      error
	latency  time.Duration
	nowMs    int64
	commands int
	trips    int
	rows     [][]*model.Queue // per batch, or nil with batchErr
	batchErr []error
	scanned  []string
	version  *string
}

// plan groups the queues by slot and node.
func (p *Poller) plan(topo *model.Topology, queues []string, clients map[string]valkey.Client, detail map[string]bool) []nodePlan {
	plans := map[string]*nodePlan{}
	get := func(addr string, primary bool) *nodePlan {
		np := plans[addr]
		if np == nil {
			np = &nodePlan{addr: addr, primary: primary}
			plans[addr] = np
		}
		return np
	}
	for _, i := range topo.Primaries() {
		np := get(topo.Nodes[i].Addr, true)
		np.scan = len(p.opt.Pinned) == 0
	}
	if p.opt.Replicas {
		// replicas are asked too, so their server version (and so whether
		// they may serve snapshots) and their health are known
		for _, n := range topo.Nodes {
			if n.Role == model.RoleReplica {
				get(n.Addr, false)
			}
		}
	}
	if o := topo.OwnerOf(keyspace.Slot(keyspace.VersionKey)); o != nil {
		get(o.Addr, true).version = true
	}
	// the queues by slot, in slots of first appearance and in their order
	// within a slot, counted into one array of indices: a map of growing
	// slices, and each batch's own appends, were twice the plan's size
	slotOf := p.slotsOf(queues)
	var count [keyspace.SlotCount]int32
	var slots []uint16
	for _, s := range slotOf {
		if count[s] == 0 {
			slots = append(slots, s)
		}
		count[s]++
	}
	// the queues in detail, by place: a look-up of each of the few, not
	// of each of a million names in the map (the list is sorted)
	inDetail := make([]bool, len(queues))
	for q, on := range detail {
		i, ok := slices.BinarySearch(queues, q)
		if !ok { // (a list out of order would miss it)
			i = slices.Index(queues, q)
		}
		if on && i >= 0 {
			inDetail[i] = true
		}
	}
	var at [keyspace.SlotCount]int32 // where each slot's indices begin in order
	n := int32(0)
	for _, s := range slots {
		at[s], n = n, n+count[s]
	}
	order := make([]int, len(queues))
	names := make([]string, len(queues))
	details := make([]bool, len(queues))
	for i, s := range slotOf {
		order[at[s]], names[at[s]] = i, queues[i]
		details[at[s]] = p.opt.DetailAll || inDetail[i]
		at[s]++
	}
	from := 0
	for _, s := range slots {
		owner := topo.OwnerOf(s)
		first := from
		from += int(count[s])
		if owner == nil {
			continue // assemble reports these as uncovered
		}
		addr := p.readNode(topo, owner, s, clients)
		np := get(addr, addr == owner.Addr)
		for lo := first; lo < from; lo += p.opt.QueuesPerScript {
			hi := min(from, lo+p.opt.QueuesPerScript)
			b := batch{slot: s, owner: owner.Addr, idx: order[lo:hi:hi],
				queues: names[lo:hi:hi], detail: details[lo:hi:hi]}
			for _, i := range order[lo:hi] {
				b.hist = b.hist || inDetail[i]
			}
			np.batches = append(np.batches, b)
		}
	}
	out := make([]nodePlan, 0, len(plans))
	for _, np := range plans {
		out = append(out, *np)
	}
	return out
}

// readNode picks where to read slot s from: a healthy replica of its owner
// when --replicas is on, the replica is Valkey 8 or newer (Redis 7 replicas
// serve incomplete data during a migration) and the slot is not migrating;
// otherwise the owner.
func (p *Poller) readNode(topo *model.Topology, owner *model.Node, s uint16, clients map[string]valkey.Client) string {
	if !p.opt.Replicas || topo.Migrating(s) {
		return owner.Addr
	}
	for _, i := range topo.ReplicasOf(owner.ID) {
		r := topo.Nodes[i]
		st := p.nodes[r.Addr]
		if r.Health != "online" || st == nil || st.err != "" || !replicaSafe(st.server) {
			continue
		}
		if _, ok := clients[r.Addr]; ok {
			return r.Addr
		}
	}
	return owner.Addr
}

// replicaSafe: Valkey 8+ replicas answer TRYAGAIN rather than serve a
// migrating slot with keys missing.
func replicaSafe(server string) bool {
	v, ok := strings.CutPrefix(server, "valkey ")
	if !ok {
		return false
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 8
}

// run sends every plan's pipeline, the nodes in parallel, each bounded by
// the per-node timeout.
func (p *Poller) run(ctx context.Context, plans []nodePlan, clients map[string]valkey.Client) []nodeResult {
	edges := p.Edges()
	out := make([]nodeResult, len(plans))
	var wg sync.WaitGroup
	for i, np := range plans {
		st := p.state(np.addr)
		nc := clients[np.addr]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if nc == nil {
				out[i] = nodeResult{plan: np, err: fmt.Errorf("no connection to %s", np.addr)}
				return
			}
			if st.timedOut && !st.answered.Swap(false) {
				// no answer in time at the last poll: this poll does not
				// wait for it again (the other nodes stay fresh at the
				// interval); a probe asks it in the background, and once
				// it answers the next poll sends it its pipeline
				p.probe(nc, st)
				out[i] = nodeResult{plan: np, err: errAsking}
				return
			}
			// each round trip is bounded by the timeout (sendBounded), not
			// the node's whole pipeline: a million queues are several
			// rounds, seconds of the server's time
			out[i] = p.runNode(ctx, nc, np, st, edges)
			st.timedOut = errors.Is(out[i].err, context.DeadlineExceeded)
		}()
	}
	wg.Wait()
	return out
}

// runNode sends one pipeline: TIME, INFO (once), SCRIPT LOAD (when not
// loaded), GET of the version fence (on its owner), a SCAN page, and one
// EVALSHA_RO per batch. A server that refuses TIME in read-only scripts
// (the embedded one) is given the time as an argument from then on.
func (p *Poller) runNode(ctx context.Context, nc valkey.Client, np nodePlan, st *nodeState, edges []int64) nodeResult {
	res := nodeResult{plan: np}
	scan := np.scan && !p.walkDone && p.scanDue(st, time.Now())
	if scan && (st.passes == 0 || p.discoverAll) {
		// the first pass (or --once's): measured pages, one round trip
		// each, for a slice of the poll's time
		if err := p.scanRounds(ctx, nc, st, &res, p.opt.FirstPass); err != nil {
			res.err = err
			return res
		}
		scan = false
	}
	start := time.Now()
	var cmds []valkey.Completed
	add := func(c valkey.Completed) int { cmds = append(cmds, c); return len(cmds) - 1 }
	if !np.primary && len(np.batches) > 0 {
		// a replica serves reads only on a READONLY connection; a pipeline
		// runs on one connection, so this covers the scripts after it
		add(nc.B().Readonly().Build())
	}
	iTime := add(nc.B().Time().Build())
	iInfo, iLoad, iVer, iScan := -1, -1, -1, -1
	if scan {
		// one measured page, first: TIME, SCAN, TIME, DBSIZE
		iScan = len(cmds)
		cmds = append(cmds, p.scanCmds(nc, st)...)
	}
	if st.server == "" {
		iInfo = add(nc.B().Info().Section("server").Build())
	}
	iStats := -1
	if np.primary && st.cost.statsDue(start) {
		iStats = add(nc.B().Info().Section("commandstats").Build())
	}
	if !st.loaded && len(np.batches) > 0 {
		iLoad = add(nc.B().ScriptLoad().Script(snapshotLua).Build())
	}
	if np.version {
		iVer = add(nc.B().Get().Key(keyspace.VersionKey).Build())
	}
	nowHint := ""
	if st.argTime {
		nowHint = strconv.FormatInt(time.Now().Add(st.offset).UnixMilli(), 10)
	}
	// the batches in rounds (send.go): round k is batches rounds[k] to
	// rounds[k+1]; each round's scripts are built when it is sent and its
	// replies decoded when they come, so a node's read holds one round's
	// commands and replies at a time, not all of them (a million queues:
	// gigabytes at the peak of a full read)
	rounds := []int{0}
	inRound := 0
	for bi := range np.batches {
		if n := len(np.batches[bi].queues); inRound > 0 && inRound+n > p.roundQueues() {
			rounds, inRound = append(rounds, bi), 0
		}
		inRound += len(np.batches[bi].queues)
	}
	rounds = append(rounds, len(np.batches))
	// build appends round k's scripts to cmds, and where each one is
	build := func(k int, cmds []valkey.Completed) ([]valkey.Completed, []int) {
		var firstOf []int
		add := func(c valkey.Completed) int { cmds = append(cmds, c); return len(cmds) - 1 }
		for bi := rounds[k]; bi < rounds[k+1]; bi++ {
			b := &np.batches[bi]
			if b.asking {
				add(nc.B().Asking().Build())
			}
			switch {
			case nowHint != "": // the time is an argument: built each poll
				firstOf = append(firstOf, add(p.script(nc, *b, edges, nowHint)))
			case b.cmd != nil:
				firstOf = append(firstOf, add(*b.cmd))
			case p.planQueues > p.opt.PinScriptsUpTo: // built for this poll alone
				firstOf = append(firstOf, add(p.script(nc, *b, edges, "")))
			default:
				c := p.script(nc, *b, edges, "").Pin()
				b.cmd = &c
				firstOf = append(firstOf, add(c))
			}
		}
		return cmds, firstOf
	}
	res.rows = make([][]*model.Queue, len(np.batches))
	res.batchErr = make([]error, len(np.batches))
	var retry []int
	// take decodes round k's replies (firstOf: where each batch's is)
	take := func(k int, replies []valkey.ValkeyResult, firstOf []int) {
		for j, at := range firstOf {
			bi, r := rounds[k]+j, replies[at]
			if err := r.Error(); err != nil {
				if ve, ok := valkey.IsValkeyErr(err); ok && ve.IsNoScript() {
					st.loaded = false
					retry = append(retry, bi)
					continue
				}
				// every batch of this pipeline asked for TIME when nowHint is
				// empty: each one refused is retried, not only the first
				if refusesTime(err) && nowHint == "" {
					st.argTime = true
					retry = append(retry, bi)
					continue
				}
				res.batchErr[bi] = err
				continue
			}
			res.rows[bi] = decodeBatch(r, np.batches[bi], &p.store)
		}
	}
	cmds, firstOf := build(0, cmds)
	replies, err := p.sendBounded(ctx, nc, st, cmds)
	res.latency, res.commands, res.trips = time.Since(start), len(cmds), 1
	if err == nil {
		err = replies[iTime].Error()
	}
	if err != nil {
		res.err = err
		return res
	}
	tm, _ := replies[iTime].AsStrSlice()
	if len(tm) == 2 {
		sec, _ := strconv.ParseInt(tm[0], 10, 64)
		usec, _ := strconv.ParseInt(tm[1], 10, 64)
		res.nowMs = sec*1000 + usec/1000
		st.offset = time.UnixMicro(sec*1e6 + usec).Sub(start.Add(res.latency / 2))
	}
	if iInfo >= 0 {
		if s, err := replies[iInfo].ToString(); err == nil {
			st.server = serverName(s)
		}
	}
	if iStats >= 0 {
		info, err := replies[iStats].ToString()
		st.cost.readStats(info, err, start)
	}
	if iLoad >= 0 && replies[iLoad].Error() == nil {
		st.loaded = true
	}
	if iVer >= 0 {
		v, err := replies[iVer].ToString()
		if err == nil || valkey.IsValkeyNil(err) {
			res.version = &v
		}
	}
	if iScan >= 0 {
		p.scannedPage(st, replies[iScan:iScan+scanReplies], &res, start)
	}
	take(0, replies, firstOf)
	// the next rounds; one that fails fails the batches it and the rest hold
	for k := 1; k+1 < len(rounds); k++ {
		cmds, firstOf = build(k, nil)
		replies, err := p.sendBounded(ctx, nc, st, cmds)
		res.trips++
		if err != nil {
			for bi := rounds[k]; bi < len(np.batches); bi++ {
				res.batchErr[bi] = err
			}
			break
		}
		res.commands += len(cmds)
		take(k, replies, firstOf)
	}
	res.latency = time.Since(start)
	if len(retry) > 0 && ctx.Err() == nil {
		p.retryBatches(ctx, nc, np, st, edges, retry, &res)
	}
	return res
}
