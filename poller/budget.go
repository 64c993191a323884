package poller

import (
	"strconv"
	"strings"
	"time"

	"github.com/echomq/emqtop/model"
)

// The self-load budget (issue 16): what the poller's scripts cost each
// node, in server time per second, is kept under Options.Budget (a share
// of one core). The poller measures a script's server time on each node
// from INFO commandstats (EVALSHA_RO's usec over its calls, read every
// statsEvery) or, where that is refused, from the pipeline's latency over
// its scripts (an upper bound: it counts the network too). Over budget, it
// stretches the sweep first (to a sweep of longestSweep), then asks for a
// longer interval (Snapshot.Poll.MinInterval, which the dashboard, serve
// and --watch honour); the queues on screen are read at every poll still.

const (
	statsEvery = 5 * time.Second
	// longestSweep is the longest the budget stretches the sweep: an
	// hour, not the 16 minutes it was (at a million queues on 2 cores the
	// busiest node stayed at 2.2% of a core with the sweep at 16 minutes:
	// the budget had nothing left to stretch but the interval, which does
	// not lighten the reads for writes). A write the tracking misses
	// without notice is the sweep's alone to find; every loss the poller
	// can see (a reconnect, a failover, a flush) is read at once.
	longestSweep = time.Hour
	// shrinkEvery: the sweep is shortened (its stretch halved) at most this
	// often, lengthened at once. The load is a running figure of the last
	// polls and a script's time is read every statsEvery: halved at every
	// poll it was still "under half the budget" while the sweep grew, and
	// went from an hour to a few minutes in six polls, hundreds of slots a
	// poll, then back (measured at a million queues).
	shrinkEvery = 2 * statsEvery
	// the most the budget stretches the interval: the dashboard still moves
	maxInterval = 30 * time.Second
	costAlpha   = 0.3 // weight of the newest poll in the running cost
	wholeRuns   = 3   // whole reads at this many polls in a row are the node's way, not a start's
)

// nodeCost is what a node's reads cost, kept between polls.
type nodeCost struct {
	usPerScript float64 // server µs a snapshot script, measured (the nodes pane shows it)
	// usPerQueue: server µs a queue read, measured, by which a poll's
	// cost is counted: a script's cost is mostly its queues', and one
	// average a script priced a read of one written queue (10 µs) as one
	// of a slot's 61 (400 µs at the start's whole read), which stretched
	// the sweep for a load that was not there
	usPerQueue   float64
	measured     bool // usPerScript comes from INFO commandstats
	statsRefused bool
	statCalls    int64
	statUsec     int64
	statAt       time.Time
	// this poller's scripts and queues read since statAt: the calls INFO
	// counts are every client's, these are ours
	scriptsSince, queuesSince int64
	rate                      float64 // server µs a second, running
	baseUs                    float64 // server µs a poll without the sweep, running
	lastAt                    time.Time
	wholeRun                  int // polls in a row read mostly in full or unproven
}

// statsDue: INFO commandstats is read with this poll's pipeline: every
// statsEvery, and every second until a script's time is measured (the
// latency's estimate counts the round trip, many times a script's time).
func (c *nodeCost) statsDue(now time.Time) bool {
	every := statsEvery
	if !c.measured {
		every = time.Second
	}
	return !c.statsRefused && now.Sub(c.statAt) >= every
}

// readStats takes an INFO commandstats answer (or its refusal).
func (c *nodeCost) readStats(info string, err error, now time.Time) {
	if err != nil {
		c.statsRefused = true
		return
	}
	calls, usec, ok := evalshaRo(info)
	if !ok {
		return
	}
	if !c.statAt.IsZero() && calls > c.statCalls && usec >= c.statUsec {
		c.usPerScript = float64(usec-c.statUsec) / float64(calls-c.statCalls)
		if c.queuesSince > 0 {
			// our share of the calls priced by our queues: another
			// client's scripts are not counted as ours
			ours := min(1, float64(c.scriptsSince)/float64(calls-c.statCalls))
			c.usPerQueue = float64(usec-c.statUsec) * ours / float64(c.queuesSince)
		}
		if !c.measured {
			// the running load so far is of the latency's estimate: it
			// starts again from what was measured
			c.rate = 0
		}
		c.measured = true
	}
	c.statCalls, c.statUsec, c.statAt = calls, usec, now
	c.scriptsSince, c.queuesSince = 0, 0
}

// evalshaRo reads cmdstat_evalsha_ro's calls and usec.
func evalshaRo(info string) (calls, usec int64, ok bool) {
	st, ok := commandStats(info)["evalsha_ro"]
	return st[0], st[1], ok
}

// commandStats reads INFO commandstats: each command's calls and usec, by
// the name the server gives it ("evalsha_ro", "client|tracking").
func commandStats(info string) map[string][2]int64 {
	out := map[string][2]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if name, ok = strings.CutPrefix(name, "cmdstat_"); !ok {
			continue
		}
		var st [2]int64
		for _, f := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(f, "calls="); ok {
				st[0], _ = strconv.ParseInt(v, 10, 64)
			} else if v, ok := strings.CutPrefix(f, "usec="); ok {
				st[1], _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out[name] = st
	}
	return out
}

// reads counts one poll's reads of a node: its scripts, and the queues
// they read, all of them and those of the sweep, of whole reads (in full
// or unproven) and of reads for writes.
type reads struct {
	scripts, queues, sweep, whole, dirty int
}

// queuesIn is how many queues the batches read.
func queuesIn(batches []batch) int {
	n := 0
	for i := range batches {
		n += len(batches[i].queues)
	}
	return n
}

// account adds one poll of a node: what it read (r), the pipeline's
// latency when it carried scripts. The interval's base is what a longer
// interval would save, so it leaves out
//   - the sweep (the budget stretches it first);
//   - the reads for writes: as many a second at any interval (a longer
//     one gathers more writes a poll), so counted in, each poll of 5 s
//     after a start held the next at 5 s with the writes of 5 s (--watch
//     at a million wrote a line every 15 s, then 5, not every second);
//   - a whole read until one has been made at wholeRuns polls in a row:
//     the first read after a start (every queue, seconds of a server's
//     time at a million) or a lost tracker is one poll's; a node read in
//     full at every poll (--full, tracking off) counts from its third.
//     The first read of queues new to the list is one too: a paced first
//     pass lists a million queues over several polls, and counted in,
//     those its later pages found held --watch's second line 20 s.
//
// The load itself (rate) counts every read. A read is priced by its
// queues once a queue's time is measured, before that by its scripts
// (the latency's estimate, or a script's measured time).
func (c *nodeCost) account(now time.Time, r reads, latency time.Duration) {
	if !c.measured && r.scripts > 0 {
		c.usPerScript = float64(latency.Microseconds()) / float64(r.scripts)
	}
	c.scriptsSince += int64(r.scripts)
	c.queuesSince += int64(r.queues)
	if r.whole*2 > r.queues {
		c.wholeRun++
	} else {
		c.wholeRun = 0
	}
	whole := r.whole
	if c.wholeRun >= wholeRuns {
		whole = 0
	}
	perQueue := c.usPerQueue
	if perQueue <= 0 && r.queues > 0 {
		perQueue = c.usPerScript * float64(r.scripts) / float64(r.queues)
	}
	us := float64(r.queues) * perQueue
	base := float64(max(0, r.queues-r.sweep-whole-r.dirty)) * perQueue
	if c.lastAt.IsZero() {
		c.baseUs = base
	} else if dt := now.Sub(c.lastAt).Seconds(); dt > 0 {
		c.rate = costAlpha*us/dt + (1-costAlpha)*c.rate
		c.baseUs = costAlpha*base + (1-costAlpha)*c.baseUs
	}
	c.lastAt = now
}

// budget stretches the sweep and sets the interval the budget allows, from
// the primaries' running costs, and writes them into the snapshot.
func (p *Poller) budget(snap *model.Snapshot) {
	b := p.opt.Budget
	// worst is the busiest primary's load where it is known (measured, or
	// the estimate where INFO is refused): an estimate waiting for its
	// measure (the latency over the scripts, many times a script's time on
	// a loaded machine) lengthened the sweep, which then came back slowly
	worst, base := 0.0, 0.0
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		st := p.nodes[n.Addr]
		if n.Role != model.RolePrimary || st == nil {
			continue
		}
		n.Load = st.cost.rate / 1e6
		n.UsPerScript = st.cost.usPerScript
		if st.cost.measured || st.cost.statsRefused {
			worst = max(worst, n.Load)
		}
		base = max(base, st.cost.baseUs)
	}
	ch := &p.ch
	now := time.Now()
	if !ch.stretchSet {
		p.firstStretch(now, b)
	} else if s := stretchFor(ch.stretch, worst, b, p.opt.Sweep); s > ch.stretch || (s < ch.stretch && now.Sub(ch.shrunkAt) >= shrinkEvery) {
		if s < ch.stretch {
			ch.shrunkAt = now
		}
		ch.stretch = s
	}
	// the interval that keeps the reads without the sweep within budget
	minI := time.Duration(base / b * float64(time.Microsecond))
	snap.Poll.Budget = b
	snap.Poll.MinInterval = min(minI, maxInterval).Round(10 * time.Millisecond)
	snap.Poll.SweepEvery = p.opt.Sweep * time.Duration(max(1, ch.stretch))
}

// firstStretch chooses the sweep's first stretch once a queue's read is
// measured on each primary: the shortest sweep whose reads cost each node
// a quarter of the budget at most (the rest is for the reads for writes).
// A sweep of a minute at a million queues costs 3.6% of a core a node:
// started there and doubled poll after poll until the running load came
// under the budget, it read hundreds of slots in the first seconds and
// kept the budget for a dozen. A node that refuses INFO, or one still
// unmeasured after firstStretchWait, is priced by what is known.
func (p *Poller) firstStretch(now time.Time, b float64) {
	ch := &p.ch
	if ch.stretchFrom.IsZero() {
		ch.stretchFrom = now
	}
	need := 0.0 // the stretch the costliest node needs
	for addr, queues := range ch.queuesOn {
		st := p.nodes[addr]
		switch {
		case st != nil && st.cost.usPerQueue > 0:
			perSecond := float64(queues) * st.cost.usPerQueue / p.opt.Sweep.Seconds()
			need = max(need, perSecond/(b*1e6/4))
		case st != nil && st.cost.statsRefused:
		case now.Sub(ch.stretchFrom) < firstStretchWait:
			return // measured within a second or two of the start
		}
	}
	most := mostStretch(p.opt.Sweep)
	s := 1
	for float64(s) < need && s < most {
		s *= 2
	}
	// shortened no sooner than shrinkEvery, as any other: the running
	// load starts again at the first measure and is low for a few polls
	// (it went 16 minutes, 8, 16, 32 at a million queues)
	ch.stretch, ch.stretchSet, ch.shrunkAt = min(s, most), true, now
}

// firstStretchWait: how long the sweep waits for its first stretch.
const firstStretchWait = 10 * time.Second

// mostStretch is the stretch of a sweep of longestSweep.
func mostStretch(sweep time.Duration) int {
	return max(1, int(longestSweep/max(sweep, time.Millisecond)))
}

// stretchFor is the sweep's next stretch (it takes stretch times sweep):
// doubled while the busiest primary's load is over budget b, up to a sweep
// of longestSweep (the last step cut to it: 32 minutes, then 60, not 64);
// halved once it is under half of b.
func stretchFor(stretch int, worst, b float64, sweep time.Duration) int {
	most := mostStretch(sweep)
	switch {
	case worst > b:
		stretch = min(most, max(1, stretch*2))
	case worst < b/2 && stretch > 1:
		stretch /= 2
	}
	return max(1, min(stretch, most))
}
