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
