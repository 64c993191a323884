package poller

import (
	"fmt"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
)

func TestNextCount(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		count        int
		took, target time.Duration
		want         int
	}{
		{1000, 1 * ms, 2 * ms, 1500},                      // quick: grows, at most by half
		{1000, 0, 2 * ms, 1500},                           // unmeasured: grows by half
		{1000, 4 * ms, 2 * ms, 500},                       // slow: shrinks at once, in proportion
		{1000, 100 * ms, 2 * ms, 100},                     // very slow: never below the floor
		{90_000, 100 * time.Microsecond, 2 * ms, 100_000}, // never above the ceiling
		{1000, 2 * ms, 2 * ms, 1000},                      // on target: stays
	}
	for _, c := range cases {
		if got := nextCount(c.count, c.took, c.target); got != c.want {
			t.Errorf("nextCount(%d, %v, %v) = %d, want %d", c.count, c.took, c.target, got, c.want)
		}
	}
}

// Once a pass is complete, polls send no SCAN until the pass may start
// again: at least every RediscoverEvery, and as often as keeps discovery
// within DiscoveryShare of the node's time; every page is measured, and
// its COUNT follows from the last one's time.
func TestRediscoveryCadence(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := 0; i < 50; i++ {
		qs[fmt.Sprintf("q-%d", i)] = want{pending: 1}
	}
	fill(t, c, qs)
	commands := func(p *Poller) map[string]int {
		for _, st := range p.nodes {
			// the budget's INFO commandstats comes and goes with its own
			// clock; it is not what this test counts
			st.cost.statsRefused = true
		}
		s, err := p.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, n := range s.Nodes {
			out[n.Addr] = n.Commands
		}
		return out
	}
	// a minute between passes (a share so small that the minute bounds
	// it): the polls after a pass send the same commands, none of them SCAN
	// (full polls: the scripts of change-driven ones vary with the writes)
	p, s := pollAll(t, c, Options{DiscoveryShare: 1e-12, Full: true})
	checkCounts(t, s, qs)
	a, b := commands(p), commands(p)
	for addr, n := range a {
		if b[addr] != n {
			t.Errorf("%s: %d then %d commands between passes", addr, n, b[addr])
		}
		st := p.nodes[addr]
		if st.passes != 1 || st.scanCount < minScanCount || st.scanTook <= 0 {
			t.Errorf("%s: passes %d, next COUNT %d, last page %v", addr, st.passes, st.scanCount, st.scanTook)
		}
	}
	// a small keyspace within the default share (1%): a pass at every
	// poll, a measured page (TIME, SCAN, TIME, DBSIZE) on top of the same
	// commands
	q, _ := pollAll(t, c, Options{Full: true})
	var due time.Time
	for _, st := range q.nodes {
		if every := q.passEvery(st); every >= time.Second {
			t.Fatalf("a pass of %v of server time may start only every %v", st.lastPassCost, every)
		} else if d := st.passStart.Add(every); d.After(due) {
			due = d
		}
	}
	time.Sleep(time.Until(due))
	for addr, n := range commands(q) {
		if n != a[addr]+scanReplies {
			t.Errorf("%s: %d commands with a page due, %d without", addr, n, a[addr])
		}
	}
}

// A large node whose writes are tracked all through a pass starts the next
// one only after RediscoverTracked (a new queue's write lists it anyway);
// one not tracked, or not large, keeps RediscoverEvery. The threshold is
// set to a key here, so three small nodes stand for large ones.
func TestRediscoveryWaitsWhereWritesAreTracked(t *testing.T) {
	c, _ := filledCluster(t, "r", 30)
	passes := func(p *Poller) map[string]int {
		out := map[string]int{}
		for addr, st := range p.nodes {
			out[addr] = st.passes
		}
		return out
	}
	for _, large := range []bool{true, false} {
		opt := Options{Sweep: 24 * time.Hour, RediscoverEvery: 50 * time.Millisecond, DiscoveryShare: 1e-12,
			RediscoverTracked: time.Hour, TrackedPassKeys: 1}
		if !large {
			opt.TrackedPassKeys = 1 << 40
		}
		p, _ := pollAll(t, c, opt)
		untilChanges(t, p)
		// a pass begun while every node's writes were tracked, and ended
		vtest.Until(t, 30*time.Second, "a whole pass under tracking on every node", func() bool {
			pollOne(t, p)
			for _, st := range p.nodes {
				if st.trackedSince.IsZero() || st.trackedSince.After(st.passStart) || (st.cursor != "" && st.cursor != "0") {
					return false
				}
			}
			return true
		})
		before := passes(p)
		if !large { // a pass more on every node, soon
			vtest.Until(t, 30*time.Second, "a pass more on every small node", func() bool {
				pollOne(t, p)
				for addr, n := range passes(p) {
					if n == before[addr] {
						return false
					}
				}
				return true
			})
			continue
		}
		// ten polls at least, over ten times RediscoverEvery at least: no
		// pass more
		start, polls := time.Now(), 0
		for ; polls < 10 || time.Since(start) < 10*opt.RediscoverEvery; polls++ {
			pollOne(t, p)
		}
		for addr, n := range passes(p) {
			if n != before[addr] {
				t.Errorf("%s, large and tracked: %d passes more in %d polls over %v, the next due in an hour", addr, n-before[addr], polls, time.Since(start).Round(time.Millisecond))
			}
		}
	}
}

// A pass's cost over a share too small to express as a Duration (10 s of
// server time at a share of 1e-12: 10^22 ns) waits RediscoverEvery, never
// a negative time (a pass at every poll); a cost the share allows more
// often waits as long as the share says.
func TestPassEveryOfAHugeRatio(t *testing.T) {
	p := &Poller{opt: Options{RediscoverEvery: time.Hour, DiscoveryShare: 1e-12, RediscoverTracked: time.Hour, TrackedPassKeys: 100_000}}
	st := &nodeState{lastPassCost: 10 * time.Second, keys: 1_000_000}
	if every := p.passEvery(st); every != time.Hour {
		t.Errorf("10 s of a pass at a share of 1e-12: a pass every %v, want every hour", every)
	}
	p.opt.DiscoveryShare = 0.01
	st.lastPassCost = 100 * time.Millisecond
	if every := p.passEvery(st); every != 10*time.Second {
		t.Errorf("100 ms of a pass at 1%%: a pass every %v, want every 10s", every)
	}
}
