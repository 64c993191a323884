package poller

import (
	"strconv"
	"testing"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// The interval's base leaves out a start's whole read: after a first poll
// of every queue and one of every slot unproven, the running base is the
// polls of changes alone (before, the whole read held it for a dozen
// polls and --watch at a million queues wrote a line every 15 s); a node
// read whole at every poll counts from its third on.
func TestBudgetBaseLeavesOutAStartsWholeRead(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	start := nodeCost{usPerScript: 100, measured: true}
	for i, p := range []struct{ scripts, whole int }{{15_000, 15_000}, {15_000, 15_000}, {300, 0}, {300, 0}} {
		start.account(at.Add(time.Duration(i)*time.Second), reads{scripts: p.scripts, queues: p.scripts, whole: p.whole}, 0)
		if start.baseUs > 300*100 {
			t.Fatalf("poll %d after a start: base %.0f µs, more than a poll of changes (30,000)", i+1, start.baseUs)
		}
	}
	full := nodeCost{usPerScript: 100, measured: true}
	for i := range 5 {
		full.account(at.Add(time.Duration(i)*time.Second), reads{scripts: 15_000, queues: 15_000, whole: 15_000}, 0)
		if counted := full.baseUs > 0; counted != (i+1 >= wholeRuns) {
			t.Fatalf("poll %d of a node read whole at every poll: base %.0f µs", i+1, full.baseUs)
		}
	}
	if full.baseUs < 0.5*15_000*100 {
		t.Fatalf("after 5 whole polls the base is %.0f µs, not near a whole poll's 1,500,000", full.baseUs)
	}
}

// Reads for writes are left out of the base too: a poll after a long one
// reads the writes of that long while, and counted in, it held the next
// interval as long.
func TestBudgetBaseLeavesOutReadsForWrites(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	c := nodeCost{usPerScript: 100, measured: true}
	for i := range 5 {
		c.account(at.Add(time.Duration(i)*5*time.Second), reads{scripts: 5_000, queues: 5_000, dirty: 4_990}, 0)
	}
	if c.baseUs > 10*100 {
		t.Fatalf("polls of 5,000 scripts, 4,990 for writes: base %.0f µs, more than the 10 others'", c.baseUs)
	}
	if c.rate < 5e4 { // 5,000 × 100 µs each 5 s, 100,000 µs a second, running: the load counts every script
		t.Fatalf("the load leaves them out too: %.0f µs a second", c.rate)
	}
}

// Over budget, the sweep doubles its stretch up to a sweep of an hour (a
// minute's sweep: 1, 2, …, 32, then 60, never past it), and comes back
// by halves once the busiest node is under half the budget; a longer
// --sweep stretches to the same hour.
func TestBudgetStretchesTheSweepToAnHour(t *testing.T) {
	stretch, seen := 1, []int{}
	for range 10 {
		stretch = stretchFor(stretch, 0.03, 0.02, time.Minute)
		seen = append(seen, stretch)
	}
	want := []int{2, 4, 8, 16, 32, 60, 60, 60, 60, 60}
	for k := range want {
		if seen[k] != want[k] {
			t.Fatalf("over budget, the stretches %v, want %v", seen, want)
		}
	}
	if s := stretchFor(60, 0.015, 0.02, time.Minute); s != 60 {
		t.Errorf("between half the budget and the budget: stretch %d, want it held at 60", s)
	}
	if s := stretchFor(60, 0.009, 0.02, time.Minute); s != 30 {
		t.Errorf("under half the budget: stretch %d, want 30", s)
	}
	if s := stretchFor(1, 0.001, 0.02, time.Minute); s != 1 {
		t.Errorf("idle at no stretch: %d, want 1", s)
	}
	if s := stretchFor(4, 0.5, 0.02, 10*time.Minute); s != 6 {
		t.Errorf("a 10-minute sweep over budget: stretch %d, want 6 (an hour)", s)
	}
}

// The budget lengthens the sweep at once, but shortens it at most every
// shrinkEvery: its load is a running figure of the last polls, which lags
// what a shorter sweep costs (halved at every poll, the sweep went from an
// hour to a few minutes in six polls, then back); a load not measured yet
// (a latency's estimate) lengthens nothing.
func TestBudgetShortensTheSweepSlowly(t *testing.T) {
	st := &nodeState{}
	p := &Poller{opt: Options{Budget: 0.02, Sweep: time.Minute}, nodes: map[string]*nodeState{"a:1": st}}
	snap := func() *model.Snapshot {
		return &model.Snapshot{Nodes: []model.NodeStatus{{Node: model.Node{Addr: "a:1", Role: model.RolePrimary}}}}
	}
	p.ch.stretch, p.ch.stretchSet = 1, true
	st.cost.rate = 0.03e6 // 3% of a core, over budget: a doubling a poll
	p.budget(snap())
	if p.ch.stretch != 1 {
		t.Fatalf("a load not measured yet (the latency's estimate): stretch %d, want 1", p.ch.stretch)
	}
	st.cost.measured = true
	for range 3 {
		p.budget(snap())
	}
	if p.ch.stretch != 8 {
		t.Fatalf("over budget for 3 polls: stretch %d, want 8", p.ch.stretch)
	}
	st.cost.rate = 0.001e6 // far under half the budget
	p.budget(snap())
	if p.ch.stretch != 4 {
		t.Fatalf("under half the budget: stretch %d, want 4 (the first shortening at once)", p.ch.stretch)
	}
	for range 5 {
		p.budget(snap())
	}
	if p.ch.stretch != 4 {
		t.Errorf("five more polls within %v: stretch %d, want 4 still", shrinkEvery, p.ch.stretch)
	}
	p.ch.shrunkAt = p.ch.shrunkAt.Add(-shrinkEvery) // as if shrinkEvery went by
	p.budget(snap())
	if p.ch.stretch != 2 {
		t.Errorf("after %v: stretch %d, want 2", shrinkEvery, p.ch.stretch)
	}
	st.cost.rate = 0.03e6
	p.budget(snap())
	if p.ch.stretch != 4 {
		t.Errorf("over budget again: stretch %d, want 4 at once", p.ch.stretch)
	}
}

// A poll is priced by the queues it reads: a script's measured average
// mixed the start's whole read (a slot's 61 queues a script) with reads of
// one written queue, and priced each of those at 61 queues' time. Another
// client's scripts on the node are not counted as ours.
func TestAReadIsPricedByItsQueues(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	info := func(calls, usec int) string {
		return "# Commandstats\r\ncmdstat_evalsha_ro:calls=" + strconv.Itoa(calls) + ",usec=" + strconv.Itoa(usec) + ",usec_per_call=1\r\n"
	}
	for _, tc := range []struct {
		others   int     // other clients' scripts between the two reads of INFO
		perQueue float64 // µs a queue
	}{{0, 6}, {100, 3}} {
		var c nodeCost
		c.readStats(info(1_000, 50_000), nil, at)
		c.account(at, reads{scripts: 100, queues: 6_000, whole: 6_000}, 50*time.Millisecond) // the start: 100 slots of 60 queues
		c.readStats(info(1_100+tc.others, 50_000+36_000), nil, at.Add(time.Second))
		if c.usPerQueue < tc.perQueue*0.99 || c.usPerQueue > tc.perQueue*1.01 {
			t.Fatalf("%d other scripts: %.2f µs a queue, want %.0f", tc.others, c.usPerQueue, tc.perQueue)
		}
		for i := 1; i <= 20; i++ { // a poll a second of 300 written queues, a script each
			c.account(at.Add(time.Duration(i)*time.Second), reads{scripts: 300, queues: 300, dirty: 300}, 0)
		}
		if want := 300 * tc.perQueue; c.rate < want*0.9 || c.rate > want*1.1 {
			t.Errorf("%d other scripts: a load of %.0f µs a second, want %.0f (300 queues at %.0f µs, not 300 scripts at a whole read's %.0f)", tc.others, c.rate, want, tc.perQueue, c.usPerScript)
		}
	}
}

// The sweep starts where the budget would take it: held until a queue's
// read is measured on each primary, then the shortest sweep whose reads
// cost each node a quarter of the budget (a million queues on 3 nodes at
// 6.5 µs a queue: 8 minutes, not a minute doubled poll after poll); a
// small cluster's sweep starts at a minute; a node never measured holds
// it firstStretchWait at most.
func TestTheSweepStartsWhereTheBudgetWouldTakeIt(t *testing.T) {
	snap := func() *model.Snapshot { return &model.Snapshot{} }
	for _, tc := range []struct {
		queues   int
		perQueue float64
		want     int
	}{{333_333, 6.5, 8}, {1_000, 10, 1}, {100_000_000, 10, 60}} {
		st := &nodeState{}
		p := &Poller{opt: Options{Budget: 0.02, Sweep: time.Minute}, nodes: map[string]*nodeState{"a:1": st}}
		p.ch.queuesOn = map[string]int{"a:1": tc.queues}
		p.budget(snap())
		p.sweep(time.Now())
		p.sweep(time.Now().Add(time.Minute))
		if p.ch.stretchSet || p.ch.need != [keyspace.SlotCount]uint8{} {
			t.Fatalf("%d queues, not measured: the first stretch set %v, or the sweep moved", tc.queues, p.ch.stretchSet)
		}
		st.cost.usPerQueue = tc.perQueue
		p.budget(snap())
		if !p.ch.stretchSet || p.ch.stretch != tc.want {
			t.Errorf("%d queues at %.1f µs: stretch %d (set %v), want %d", tc.queues, tc.perQueue, p.ch.stretch, p.ch.stretchSet, tc.want)
		}
		st.cost.measured = true // far under half the budget, at once: not shortened yet
		p.budget(snap())
		if p.ch.stretch != tc.want {
			t.Errorf("%d queues: the first stretch %d shortened to %d at once", tc.queues, tc.want, p.ch.stretch)
		}
	}
	p := &Poller{opt: Options{Budget: 0.02, Sweep: time.Minute}, nodes: map[string]*nodeState{"a:1": {}}}
	p.ch.queuesOn = map[string]int{"a:1": 1_000_000}
	p.firstStretch(time.Now(), 0.02)
	p.firstStretch(time.Now().Add(firstStretchWait), 0.02)
	if !p.ch.stretchSet || p.ch.stretch != 1 {
		t.Errorf("a node never measured: stretch %d (set %v) after %v, want the sweep of a minute", p.ch.stretch, p.ch.stretchSet, firstStretchWait)
	}
}

// The queues a paced discovery adds after the first poll are read whole
// once, as new, and count as a start's whole read, not in the interval's
// base: counted in, the queues found by a million-queue pass's later pages
// held --watch's second line 20 s (the budget's interval for them).
func TestNewQueuesCountAsAWholeRead(t *testing.T) {
	c, _ := filledCluster(t, "n", 400)               // 133 keys a node: a first page of 100 of them
	p := New(c, Options{FirstPass: time.Nanosecond}) // a page a poll, as at a million
	t.Cleanup(p.Close)
	newRead := false
	for poll := 1; poll <= 4; poll++ {
		s := pollOne(t, p)
		t.Logf("poll %d: %v", poll, s.Poll.Why)
		if s.Poll.Why[model.ReadNew] == 0 || s.Poll.Why[model.ReadFull] > 0 {
			continue
		}
		newRead = true
		whole := 0
		for _, n := range p.ch.wholeBy {
			whole += n
		}
		if whole < s.Poll.Why[model.ReadNew] {
			t.Errorf("poll %d read %d batches of new queues, and counted %d queues as a whole read", poll, s.Poll.Why[model.ReadNew], whole)
		}
	}
	if !newRead {
		t.Fatal("no poll read new queues alone: the test shows nothing")
	}
}
