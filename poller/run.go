package poller

// Sending the plan: each node's pipeline, the nodes in parallel.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

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
// EVALSHA_RO per batch, or per group of a primary's small batches
// (group.go). A server that refuses TIME in read-only scripts
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
	// build appends round k's scripts to cmds, and the batches each one
	// answers: a batch's own, or a grouped call's (group.go)
	build := func(k int, cmds []valkey.Completed) ([]valkey.Completed, []call) {
		var calls []call
		add := func(c valkey.Completed) int { cmds = append(cmds, c); return len(cmds) - 1 }
		for bi := rounds[k]; bi < rounds[k+1]; bi++ {
			b := &np.batches[bi]
			if p.groupable(&np, st, b) {
				first, n := bi, len(b.queues)
				for bi+1 < rounds[k+1] && p.groupable(&np, st, &np.batches[bi+1]) && n+len(np.batches[bi+1].queues) <= p.opt.QueuesPerScript {
					bi++
					n += len(np.batches[bi].queues)
				}
				if bi > first {
					calls = append(calls, call{at: add(p.groupScript(nc, np.batches[first:bi+1], nowHint)), first: first, n: bi + 1 - first, grouped: true})
					continue
				}
			}
			if b.asking {
				add(nc.B().Asking().Build())
			}
			c := call{first: bi, n: 1}
			switch {
			case nowHint != "": // the time is an argument: built each poll
				c.at = add(p.script(nc, *b, edges, nowHint))
			case b.cmd != nil:
				c.at = add(*b.cmd)
			case p.planQueues > p.opt.PinScriptsUpTo: // built for this poll alone
				c.at = add(p.script(nc, *b, edges, ""))
			default:
				pinned := p.script(nc, *b, edges, "").Pin()
				b.cmd = &pinned
				c.at = add(pinned)
			}
			calls = append(calls, c)
		}
		return cmds, calls
	}
	res.rows = make([][]*model.Queue, len(np.batches))
	res.batchErr = make([]error, len(np.batches))
	var retry []int
	// take decodes round k's replies
	take := func(replies []valkey.ValkeyResult, calls []call) {
		for _, c := range calls {
			r := replies[c.at]
			if err := r.Error(); err != nil {
				again := false
				if ve, ok := valkey.IsValkeyErr(err); ok && ve.IsNoScript() {
					st.loaded, again = false, true
				} else if refusesTime(err) && nowHint == "" {
					// every batch of this pipeline asked for TIME when
					// nowHint is empty: each one refused is retried, not
					// only the first
					st.argTime, again = true, true
				} else if c.grouped {
					// a server that refuses a grouped call (keys not
					// declared, a script reading several slots): each
					// slot its own script from now on
					st.noGroup, again = true, true
				}
				for bi := c.first; bi < c.first+c.n; bi++ {
					if again {
						retry = append(retry, bi)
					} else {
						res.batchErr[bi] = err
					}
				}
				continue
			}
			if c.grouped {
				retry = append(retry, decodeGroup(r, &np, c, res.rows, &p.store)...)
				continue
			}
			res.rows[c.first] = decodeBatch(r, np.batches[c.first], &p.store)
		}
	}
	cmds, calls := build(0, cmds)
	res.scripts += len(calls)
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
		st.offsetErr = res.latency / 2
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
	take(replies, calls)
	// the next rounds; one that fails fails the batches it and the rest hold
	for k := 1; k+1 < len(rounds); k++ {
		cmds, calls = build(k, nil)
		res.scripts += len(calls)
		replies, err := p.sendBounded(ctx, nc, st, cmds)
		res.trips++
		if err != nil {
			for bi := rounds[k]; bi < len(np.batches); bi++ {
				res.batchErr[bi] = err
			}
			break
		}
		res.commands += len(cmds)
		take(replies, calls)
	}
	res.latency = time.Since(start)
	if len(retry) > 0 && ctx.Err() == nil {
		p.retryBatches(ctx, nc, np, st, edges, retry, &res)
	}
	return res
}
