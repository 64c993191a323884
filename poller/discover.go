package poller

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// Discovery is paced so that it never holds a server. Each SCAN is
// bracketed by TIME in the same pipeline: the server runs a pipeline's
// commands one after another, so the difference of the two clocks is the
// server time of that one SCAN. Its COUNT is chosen from the last call's
// time to aim at ScanTarget (a few milliseconds; a server serves no other
// client while it runs a command). Once a pass is complete, the next one
// starts no sooner than RediscoverEvery after the last one started, one
// SCAN page per poll in between, so a large keyspace is walked slowly and
// evenly, not at every poll.
const (
	minScanCount = 100
	maxScanCount = 100_000
)

// scanCmds are the commands of one measured SCAN page: TIME, SCAN, TIME,
// and DBSIZE (O(1)), for how far the pass has gone.
func (p *Poller) scanCmds(nc valkey.Client, st *nodeState) []valkey.Completed {
	cur, _ := strconv.ParseUint(st.cursor, 10, 64)
	if st.scanCount == 0 {
		st.scanCount = p.opt.ScanCount
	}
	return []valkey.Completed{
		nc.B().Time().Build(),
		nc.B().Scan().Cursor(cur).Match(keyspace.ScanPattern).Count(int64(st.scanCount)).Type("zset").Build(),
		nc.B().Time().Build(),
		nc.B().Dbsize().Build(),
	}
}

// scanReplies is how many replies scanCmds has.
const scanReplies = 4

// scanDue reports whether this poll sends the node a SCAN page: during a
// pass always; between passes once RediscoverEvery has passed since the
// last pass started.
func (p *Poller) scanDue(st *nodeState, now time.Time) bool {
	if st.cursor != "" && st.cursor != "0" {
		return true
	}
	return st.passStart.IsZero() || now.Sub(st.passStart) >= p.passEvery(st)
}

// passEvery is how often a pass may start on a node: as often as keeps
// discovery within DiscoveryShare of the node's time (a pass that cost 1 ms
// of server time may start every 100 ms at 1%, so a small keyspace is
// walked at every poll and a new queue shows up at once), and at least
// every RediscoverEvery.
//
// A large node (TrackedPassKeys) whose writes were tracked all through its
// last pass waits RediscoverTracked at least: every queue made since that
// pass began was listed by its first write, so the next pass would find
// nothing new; it only drops the queues gone (listed, idle, until then).
func (p *Poller) passEvery(st *nodeState) time.Duration {
	every := p.opt.RediscoverEvery
	// in floating point: a pass of 10 s over a share of 1e-12 is past any
	// Duration, and the conversion of that is undefined (it came out
	// negative here: a pass at every poll, where the share asked for none)
	if d := float64(st.lastPassCost) / p.opt.DiscoveryShare; d < float64(every) {
		every = time.Duration(d)
	}
	if st.keys >= p.opt.TrackedPassKeys && !st.trackedSince.IsZero() && !st.trackedSince.After(st.passStart) {
		every = max(every, p.opt.RediscoverTracked)
	}
	return every
}

// scannedPage takes the replies of scanCmds: the page itself, and the time
// it took the server, which sets the next COUNT.
func (p *Poller) scannedPage(st *nodeState, replies []valkey.ValkeyResult, res *nodeResult, now time.Time) {
	if st.cursor == "" || st.cursor == "0" {
		st.passStart, st.passCost, st.passWalked = now, 0, 0
	}
	// a page of COUNT visits about COUNT keys (every type: the TYPE filter
	// applies after the walk); DBSIZE is how many there are
	st.passWalked += int64(st.scanCount)
	if n, err := replies[3].AsInt64(); err == nil {
		st.keys = n
	}
	p.scanned(st, replies[1], res)
	took, ok := serverTime(replies[0], replies[2])
	if !ok {
		took = p.opt.ScanTarget // unmeasured: counted at the target
	}
	if st.passCost += took; st.cursor == "0" {
		st.lastPassCost = st.passCost
	}
	if !ok {
		return
	}
	st.scanTook = took
	st.scanMax = max(st.scanMax, took)
	st.scanCount = nextCount(st.scanCount, took, p.opt.ScanTarget)
}

// nextCount aims the next page at target: proportional to the last one's
// time, at most half as large again (a page of a sparse stretch is quick, the
// next may not be), and shrunk at once when the last one was slow.
func nextCount(count int, took, target time.Duration) int {
	next := count * 3 / 2
	if took > 0 {
		next = min(next, int(float64(count)*float64(target)/float64(took)))
	}
	return min(maxScanCount, max(minScanCount, next))
}

// serverTime is the time between two TIME replies.
func serverTime(a, b valkey.ValkeyResult) (time.Duration, bool) {
	ta, ok1 := timeOf(a)
	tb, ok2 := timeOf(b)
	if !ok1 || !ok2 || tb.Before(ta) {
		return 0, false
	}
	return tb.Sub(ta), true
}

func timeOf(r valkey.ValkeyResult) (time.Time, bool) {
	tm, err := r.AsStrSlice()
	if err != nil || len(tm) != 2 {
		return time.Time{}, false
	}
	sec, err1 := strconv.ParseInt(tm[0], 10, 64)
	usec, err2 := strconv.ParseInt(tm[1], 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, false
	}
	return time.UnixMicro(sec*1e6 + usec), true
}

// scanRounds walks the node's keyspace with measured pages, one round trip
// each (other clients are served between them), until the pass is complete
// or budget has passed: the first pass of the dashboard, a slice of it per
// poll, and DiscoverAll's whole pass.
func (p *Poller) scanRounds(ctx context.Context, nc valkey.Client, st *nodeState, res *nodeResult, budget time.Duration) error {
	start := time.Now()
	for {
		replies, err := p.sendBounded(ctx, nc, st, p.scanCmds(nc, st))
		res.commands += scanReplies
		res.trips++
		if err == nil {
			for _, r := range replies {
				if err = r.Error(); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
		p.scannedPage(st, replies, res, time.Now())
		if st.cursor == "0" || time.Since(start) >= budget || ctx.Err() != nil {
			return nil
		}
	}
}

// queues is the set to poll: pinned, or what discovery found.
func (p *Poller) queues(topo *model.Topology) []string {
	if len(p.opt.Pinned) > 0 {
		return p.opt.Pinned
	}
	if p.walkDone {
		return p.polled
	}
	if p.qunsure {
		// the last list kept queues while the topology was not read
		// again: once it has been, a new version, so that the list and
		// the plan (whose batches index the list) are both made again
		p.mu.Lock()
		read := !p.topoAt.Equal(p.qunsureAt)
		p.mu.Unlock()
		if read {
			p.qunsure = false
			p.setChanged()
		}
	}
	if p.qcache != nil && p.qcacheVer == p.qver && p.qcacheTop == topo {
		return p.qcache
	}
	defer func() { p.qcacheVer, p.qcacheTop = p.qver, topo }()
	// a sorted slice with the duplicates dropped, not a set: a map of a
	// million names was 47 MB at the peak of every change of the queue set
	p.names.mu.Lock()
	defer p.names.mu.Unlock()
	added, on := p.names.added, p.names.addedOn
	p.names.added, p.names.addedOn = nil, nil
	if out, ok := p.withAdded(topo, added, on); ok {
		p.qcache, p.polled = out, out
		return out
	}
	p.names.renew(p.nodes)
	size := 0
	for _, st := range p.nodes {
		size += st.known.len() + st.passSeen.len()
	}
	out := make([]string, 0, size)
	primary, walked := map[string]bool{}, map[string]bool{}
	for _, i := range topo.Primaries() {
		addr := topo.Nodes[i].Addr
		primary[addr] = true
		st := p.nodes[addr]
		if st == nil {
			continue
		}
		walked[addr] = st.known != nil // a whole pass of it is done
		st.known.each(func(id int) { out = append(out, p.names.t.Name(id)) })
		st.passSeen.each(func(id int) {
			if !st.known.has(id) {
				out = append(out, p.names.t.Name(id))
			}
		})
	}
	// A primary not yet walked whole (a replica just promoted, a node that
	// took slots over) keeps the queues its slots had on the node that held
	// them before: without them a poll after a failover showed half the
	// queues and half the jobs as if complete, until discovery walked it.
	for addr, st := range p.nodes {
		if primary[addr] {
			continue
		}
		for _, qs := range []*idSet{st.known, st.passSeen} {
			qs.each(func(id int) {
				q := p.names.t.Name(id)
				if o := topo.OwnerOf(keyspace.QueueSlot(q)); o != nil && !walked[o.Addr] {
					out = append(out, q)
				}
			})
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	// A queue polled before whose slot moved since is kept until its new
	// owner has been walked since the move: its old owner's next pass no
	// longer finds it, and the queue vanished until the new one's did.
	// And while no topology was read since a pass ended without some of
	// its queues, a queue no pass finds is kept: its slot may have moved
	// with the topology in hand not knowing it yet (the pass asked for a
	// new one), and the list is made again once one has been read.
	var shrank time.Time
	for _, st := range p.nodes {
		if st.shrankAt.After(shrank) {
			shrank = st.shrankAt
		}
	}
	p.mu.Lock()
	unsure := p.topoAt.Before(shrank)
	p.qunsureAt = p.topoAt
	kept := len(out)
	for _, q := range p.polled {
		if _, found := slices.BinarySearch(out[:kept], q); found {
			continue
		}
		if unsure {
			out = append(out, q)
			continue
		}
		s := keyspace.QueueSlot(q)
		o := topo.OwnerOf(s)
		if moved := p.movedAt[s]; o != nil && !moved.IsZero() {
			if st := p.nodes[o.Addr]; st == nil || st.knownAt.Before(moved) {
				out = append(out, q)
			}
		}
	}
	p.mu.Unlock()
	if len(out) > kept {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	if len(out) < cap(out)*3/4 { // a set seen in two passes: not kept at twice its size
		out = slices.Clone(out)
	}
	p.qcache, p.polled, p.qunsure = out, out, unsure
	return out
}
