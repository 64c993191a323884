package poller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/valkey-io/valkey-go"
)

// The round trips of a node's pipeline: sent with the poller's own bound,
// probed in the background after a timeout, retried for NOSCRIPT and for
// a server that refuses TIME in read-only scripts.

// errBusy: the node has not yet answered an earlier poll's pipeline.
var errBusy = errors.New("still no answer to an earlier poll")

// send pipelines cmds to one node and waits for the answers at most until
// ctx ends. valkey-go honours ctx once a connection is up, but a caller
// that finds the node's connection being dialled again (by the client's
// own topology refresh, say, after a timeout broke it) waits for that dial
// whatever ctx says: a paused node would hold the whole poll for the dial
// timeout. So the wait is the poller's: past ctx the node is reported as
// not answering, the call finishes on its own, and until it has, the node
// is sent nothing more (a slow node is not piled up with requests).
func send(ctx context.Context, nc valkey.Client, st *nodeState, cmds []valkey.Completed) ([]valkey.ValkeyResult, error) {
	if !st.busy.CompareAndSwap(false, true) {
		return nil, errBusy
	}
	done := make(chan []valkey.ValkeyResult, 1)
	go func() {
		r := nc.DoMulti(ctx, cmds...)
		st.busy.Store(false) // before the answer is handed over: the caller may send again at once
		done <- r
	}()
	select {
	case r := <-done:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A node's pipeline is sent in rounds of at most roundQueues queues: a
// million queues are ~330,000 a node, seconds of the server's time, and
// one pipeline of them outlived the connection's write timeout (the
// --timeout: "i/o timeout", every queue stale, at every poll). A round is
// bounded so that it takes a quarter of the timeout at perQueue, the
// server time a queue was measured to cost at a million queues (20 µs on
// the test machine, scripts of 61 queues); at least minRound queues.
// A round is also at most maxRound queues: its replies are held until
// decoded, ~1.5 KB a queue as the client parses them, and with
// --timeout 10s a round was 125,000 queues a primary, three at once: 570
// MB at the peak of a full read; at 20,000 still 90 MB (at 100,000
// queues, --once's whole heap), at 2,000 6 MB (a million queues: 167
// round trips a primary, each ~40 ms of the server's time, so a round
// trip's latency is under 1% of the poll).
const (
	perQueue = 20 * time.Microsecond
	minRound = 1000
	maxRound = 2_000
)

func (p *Poller) roundQueues() int {
	if p.opt.RoundQueues > 0 {
		return p.opt.RoundQueues
	}
	return min(maxRound, max(minRound, int(p.opt.Timeout/4/perQueue)))
}

// sendBounded is send with the answer awaited for at most the timeout
// (--timeout): one round trip's bound. A node that does not answer ends
// its poll after one timeout; one that answers every round in time is
// read whole, however many rounds it takes.
func (p *Poller) sendBounded(ctx context.Context, nc valkey.Client, st *nodeState, cmds []valkey.Completed) ([]valkey.ValkeyResult, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opt.Timeout)
	defer cancel()
	return send(ctx, nc, st, cmds)
}

// errAsking: the node gave no answer in time at an earlier poll and is
// being asked again in the background.
var errAsking = errors.New("asking it again in the background")

// probe sends TIME to a node that timed out, in the background, with the
// full timeout; an answer lets the next poll send the node its pipeline
// again. Nothing is sent while an earlier call to the node is out.
func (p *Poller) probe(nc valkey.Client, st *nodeState) {
	if !st.busy.CompareAndSwap(false, true) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), p.opt.Timeout)
		err := nc.Do(ctx, nc.B().Time().Build()).Error()
		cancel()
		if err == nil {
			st.answered.Store(true)
		}
		st.busy.Store(false)
	}()
}

// retryBatches re-sends scripts that failed for NOSCRIPT (the server
// restarted and lost its scripts) or for TIME, one more round trip.
func (p *Poller) retryBatches(ctx context.Context, nc valkey.Client, np nodePlan, st *nodeState, edges []int64, retry []int, res *nodeResult) {
	// a second round only when the first learnt that this server refuses
	// TIME in a read-only script (the embedded server): a script missing
	// and TIME refused both show up at the start, one after the other, and
	// neither is the operator's business
	for round := 0; round < 2 && len(retry) > 0; round++ {
		retry = p.retryRound(ctx, nc, np, st, edges, retry, res)
	}
}

// retryRound loads the script and runs the batches of retry again; it
// returns the batches to run once more with the time as an argument.
func (p *Poller) retryRound(ctx context.Context, nc valkey.Client, np nodePlan, st *nodeState, edges []int64, retry []int, res *nodeResult) []int {
	cmds := []valkey.Completed{nc.B().ScriptLoad().Script(snapshotLua).Build()}
	nowHint := ""
	if st.argTime {
		nowHint = strconv.FormatInt(time.Now().Add(st.offset).UnixMilli(), 10)
	}
	at := make([]int, len(retry))
	for i, bi := range retry {
		if np.batches[bi].asking {
			cmds = append(cmds, nc.B().Asking().Build())
		}
		at[i] = len(cmds)
		cmds = append(cmds, p.script(nc, np.batches[bi], edges, nowHint))
	}
	replies, err := p.sendBounded(ctx, nc, st, cmds)
	res.commands += len(cmds)
	res.scripts += len(retry)
	res.trips++
	if err != nil {
		for _, bi := range retry {
			res.batchErr[bi] = err
		}
		return nil
	}
	loadErr := replies[0].Error()
	if loadErr == nil {
		st.loaded = true
	}
	var again []int
	for i, bi := range retry {
		err := replies[at[i]].Error()
		switch {
		case err == nil:
			res.batchErr[bi] = nil
			res.rows[bi] = decodeBatch(replies[at[i]], np.batches[bi], &p.store)
			continue
		case refusesTime(err) && nowHint == "":
			again = append(again, bi)
		}
		if ve, ok := valkey.IsValkeyErr(err); ok && ve.IsNoScript() && loadErr != nil {
			// say why the script is missing: a user without script|load
			err = fmt.Errorf("SCRIPT LOAD refused: %w", loadErr)
		}
		res.batchErr[bi] = err
	}
	if len(again) > 0 {
		st.argTime = true
	}
	return again
}

func refusesTime(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "not allowed") && (strings.Contains(s, "read-only") || strings.Contains(s, "readonly"))
}
