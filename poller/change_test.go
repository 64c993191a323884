package poller

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// untilChanges polls until every primary is tracked and a poll read
// nothing in full nor unproven (the first polls are full: the trackers
// start, and their first Take cannot vouch for anything).
func untilChanges(t *testing.T, p *Poller) *model.Snapshot {
	t.Helper()
	var s *model.Snapshot
	vtest.Until(t, 30*time.Second, "a poll of changes only, every primary tracked", func() bool {
		s = pollOne(t, p)
		settled := s.Poll.Read == "changes" && s.Poll.Why[model.ReadFull] == 0 && s.Poll.Why[model.ReadUnproven] == 0
		for _, n := range s.Nodes {
			settled = settled && (n.Role != model.RolePrimary || n.Tracking)
		}
		return settled
	})
	return s
}

// untilRead polls until a poll reads something (the invalidation of a
// write arrives on the tracking connection a moment after the write), and
// holds that every poll before it read nothing.
func untilRead(t *testing.T, p *Poller) *model.Snapshot {
	t.Helper()
	var s *model.Snapshot
	vtest.Until(t, 30*time.Second, "a poll that reads what was written", func() bool {
		s = pollOne(t, p)
		return s.Poll.Scripts > 0
	})
	return s
}

func pollOne(t *testing.T, p *Poller) *model.Snapshot {
	t.Helper()
	s, err := p.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkSums(t, p, s)
	checkDue(t, p)
	return s
}

// why is a poll's reasons in a stable order, "dirty:1 deadline:1".
func why(s *model.Snapshot) string {
	var out []string
	for _, r := range []string{model.ReadFull, model.ReadUnproven, model.ReadNew, model.ReadDirty, model.ReadDeadline, model.ReadDetail, model.ReadSweep} {
		if n := s.Poll.Why[r]; n > 0 {
			out = append(out, r+":"+strconv.Itoa(n))
		}
	}
	return strings.Join(out, " ")
}

// On a real cluster, a poll reads what changed and nothing else: nothing
// when nothing was written, the one slot written to (in the very poll
// after the write), the slot whose lease ran out with no write, the queue
// on screen in detail; every other queue keeps its reading, its age moving
// on; a flush, a lost tracking connection and a slot move make the poller
// read what it can no longer vouch for.
func TestChangeDrivenPoll(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := 0; i < 40; i++ {
		qs[fmt.Sprintf("q-%d", i)] = want{pending: 2}
	}
	fill(t, c, qs)
	// no sweep in this test: every read must have a reason of its own
	// and a discovery pass at least every 5 s: a pass starts as often as
	// keeps discovery within 1% of a node's time, measured by TIME around
	// each page, which a server kept off the CPU by a loaded machine
	// stretches (a page "of 300 ms" puts the next pass 30 s off, up to
	// RediscoverEvery's minute); the slot move below waits for a queue
	// that only a pass on its new owner lists
	p, _ := pollAll(t, c, Options{Sweep: 24 * time.Hour, RediscoverEvery: 5 * time.Second})
	untilChanges(t, p)

	s := pollOne(t, p)
	if s.Poll.Scripts != 0 || s.Poll.Carried != 40 || s.Poll.Read != "changes" {
		t.Fatalf("nothing written: %d scripts (%s), %d carried, read %s", s.Poll.Scripts, why(s), s.Poll.Carried, s.Poll.Read)
	}
	if p.last.touched == nil || len(p.last.touched) != 0 {
		t.Fatalf("nothing written: the snapshot was not the last one (made by difference: %v, %d queues put in)", p.last.touched != nil, len(p.last.touched))
	}
	checkCounts(t, s, qs)
	for _, n := range s.Nodes {
		if n.Role == model.RolePrimary && (!n.Tracking || n.Full != "") {
			t.Errorf("%s: tracking %v, full %q", n.Addr, n.Tracking, n.Full)
		}
	}
	q1 := s.Queue("q-1")
	age, at := s.OldestAge(q1), s.ServerTimeMs

	// a write: its slot, in the next poll
	if _, err := echomq.Enqueue(ctx, c, "q-7", []byte("x")); err != nil {
		t.Fatal(err)
	}
	s = untilRead(t, p)
	if why(s) != "dirty:1" || s.Queue("q-7").Pending != 3 || s.Queue("q-7").Stale {
		t.Fatalf("after a write to q-7: %s, q-7 pending %d", why(s), s.Queue("q-7").Pending)
	}
	if a := s.OldestAge(s.Queue("q-1")); s.ServerTimeMs > at && a != age+s.ServerTimeMs-at {
		t.Errorf("a carried queue's age did not move with the server's clock: %d then %d, %d ms later", age, a, s.ServerTimeMs-at)
	}
	if s.Queue("q-1") != q1 {
		t.Error("a carried queue was copied, not shared with the snapshot before")
	}

	// a write that changes none of a queue's figures (a job's row written
	// with what it holds): read, and the reading is the last one, shared
	q9 := s.Queue("q-9")
	pk, _ := keyspace.QueueKey("q-9", keyspace.TypePending)
	ids, err := c.Do(ctx, c.B().Zrange().Key(pk).Min("0").Max("0").Build()).AsStrSlice()
	if err != nil || len(ids) != 1 {
		t.Fatal(ids, err)
	}
	jk, _ := keyspace.JobKey("q-9", ids[0])
	if err := c.Do(ctx, c.B().Hset().Key(jk).FieldValue().FieldValue("emqtop-test", "x").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if s = untilRead(t, p); why(s) != "dirty:1" || s.Queue("q-9") != q9 {
		t.Fatalf("a write that changed no figure: %s; q-9 shared %v", why(s), s.Queue("q-9") == q9)
	}

	// a lease that runs out with no write: the claim is read as a write,
	// the end of the lease as a deadline
	job, ok, err := echomq.Claim(ctx, c, "q-3", 300*time.Millisecond)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	s = untilRead(t, p)
	q3 := s.Queue("q-3")
	if why(s) != "dirty:1" || q3.Active != 1 || q3.Expired != 0 || q3.NextDeadlineMs == 0 {
		t.Fatalf("after a claim: %s, active %d expired %d next %d", why(s), q3.Active, q3.Expired, q3.NextDeadlineMs)
	}
	s = untilRead(t, p) // the lease runs out: a deadline, with nothing written
	if why(s) != "deadline:1" || s.Queue("q-3").Expired != 1 || s.Queue("q-3").NextDeadlineMs != 0 {
		t.Fatalf("after the lease ran out: %s, expired %d", why(s), s.Queue("q-3").Expired)
	}
	if s = pollOne(t, p); s.Poll.Scripts != 0 {
		t.Fatalf("the deadline is read once: %s", why(s))
	}

	// the queue on screen is read every poll, with its lists
	p.SetDetail("q-5")
	for i := 0; i < 2; i++ {
		s = pollOne(t, p)
		if q5 := s.Queue("q-5"); !strings.Contains(why(s), "detail:1") || len(q5.PendingJobs()) != 2 {
			t.Fatalf("detail: %s, %d jobs", why(s), len(q5.PendingJobs()))
		}
	}
	p.SetDetail()
	if s = pollOne(t, p); s.Poll.Scripts != 0 || p.last.touched == nil || s.Queue("q-5").PendingJobs() != nil {
		t.Fatalf("no detail, no write: %s; made by difference %v; q-5's jobs %d", why(s), p.last.touched != nil, len(s.Queue("q-5").PendingJobs()))
	}
	if err := echomq.Requeue(ctx, c, "q-3", job.ID, job.Attempts); err != nil {
		t.Fatal(err)
	}
	if s = pollOne(t, p); why(s) != "dirty:1" || s.Queue("q-3").Pending != 2 || s.Queue("q-3").Expired != 0 {
		t.Fatalf("after the requeue: %s", why(s))
	}

	// a killed tracking connection: its node is read in full until a new
	// tracker runs, then all its slots once (unproven), then changes again
	owner, _ := cl.Owner(int(keyspace.QueueSlot("q-7")))
	addr := cl.Nodes[owner].Addr()
	p.ch.mu.Lock()
	id := p.ch.trackers[addr].t.ID()
	p.ch.mu.Unlock()
	if err := c.Nodes()[addr].Do(ctx, c.B().ClientKill().Id(id).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	onNode := 0
	for _, q := range s.Queues.All() {
		if q.Node.Addr() == addr {
			onNode++
		}
	}
	sawFull, sawUnproven := false, false
	if !vtest.Within(30*time.Second, func() bool {
		s = pollOne(t, p)
		n := s.Poll.Why[model.ReadFull] + s.Poll.Why[model.ReadUnproven]
		if n > 0 && s.Queue("q-7").Stale {
			t.Fatal("a queue read again is marked stale")
		}
		sawFull = sawFull || s.Poll.Why[model.ReadFull] > 0
		sawUnproven = sawUnproven || s.Poll.Why[model.ReadUnproven] > 0
		return sawFull && sawUnproven
	}) {
		t.Fatalf("after the tracking connection was killed: full %v, unproven %v", sawFull, sawUnproven)
	}
	if s = untilChanges(t, p); s.Poll.Scripts != 0 {
		t.Fatalf("tracking again: %s", why(s))
	}

	// a flush: everything is read (in a full poll: more than 3/4 of the
	// slots need it), every queue is empty
	for _, nc := range c.Nodes() {
		if err := nc.Do(ctx, c.B().Flushall().Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	s = pollOne(t, p)
	if s.Poll.Carried != 0 || s.Poll.Read != model.ReadFull {
		t.Fatalf("after a flush: %s, %d carried", why(s), s.Poll.Carried)
	}
	for _, q := range s.Queues.All() {
		if q.Pending != 0 || q.Stale {
			t.Fatalf("%s after a flush: pending %d stale %v", q.Name, q.Pending, q.Stale)
		}
	}

	// a slot move: its slot is read from the new owner
	if _, err := echomq.Enqueue(ctx, c, "q-7", []byte("x")); err != nil {
		t.Fatal(err)
	}
	untilChanges(t, p)
	slot := int(keyspace.QueueSlot("q-7"))
	from, _ := cl.Owner(slot)
	if err := cl.MoveSlots(from, (from+1)%3, slot, slot); err != nil {
		t.Fatal(err)
	}
	// (a poll in the middle of the move may fail the slot's read, as a
	// full poll would: TRYAGAIN; the queue is stale for that poll)
	vtest.Within(30*time.Second, func() bool {
		s = pollOne(t, p)
		q7 := s.Queue("q-7")
		return q7 != nil && q7.Node.Addr() == cl.Nodes[(from+1)%3].Addr() && !q7.Stale
	}) // and what the last poll says is held below
	if q7 := s.Queue("q-7"); q7 == nil {
		t.Fatalf("after the slot move q-7 is not in the snapshot: %s", discoveryOf(p, "q-7"))
	} else if q7.Node.Addr() != cl.Nodes[(from+1)%3].Addr() || q7.Pending != 1 || q7.Stale {
		t.Fatalf("after the slot move: node %s pending %d stale %v err %q, %s; nodes %s", q7.Node, q7.Pending, q7.Stale, q7.Err, why(s), notWhole(s))
	}
}

// A server that refuses tracking (the embedded one) is polled in full, and
// the node says why.
func TestChangeDrivenFallsBackToFull(t *testing.T) {
	env, err := demo.Start(demo.EnvOptions{Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := echomq.Enqueue(ctx, env.Client, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Addrs: env.Addrs, Timeout: 2 * time.Second, Standalone: true}
	c, err := Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := New(c, Options{Dial: cfg.Dialer(), Pinned: []string{"orders"}})
	defer p.Close()
	var s *model.Snapshot
	vtest.Within(30*time.Second, func() bool {
		if s, err = p.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(s.Nodes[0].Full, "refused")
	}) // and what the last poll says is held below
	n := s.Nodes[0]
	if n.Tracking || !strings.Contains(n.Full, "tracking refused") || s.Poll.Read != model.ReadFull || s.Poll.Why[model.ReadFull] != 1 || s.Queue("orders").Pending != 1 {
		t.Fatalf("tracking %v, full %q, read %s %v, pending %d", n.Tracking, n.Full, s.Poll.Read, s.Poll.Why, s.Queue("orders").Pending)
	}
}

// The budget: each primary's load is measured from INFO commandstats and
// the answers; past the budget the sweep slows and the poller asks for a
// longer interval, within it it asks for none.
func TestBudget(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := 0; i < 300; i++ {
		qs[fmt.Sprintf("b-%d", i)] = want{pending: 1}
	}
	fill(t, c, qs)
	for _, tc := range []struct {
		budget float64
		over   bool
	}{{1e-6, true}, {0.5, false}} {
		p, s := pollAll(t, c, Options{Full: true, Budget: tc.budget})
		// polls at the pace of a loop polling every 50 ms (the load is
		// server time over wall time, so back-to-back polls would measure
		// a busier server than the budget is about): five, and on until
		// every primary's script cost is measured by INFO commandstats.
		// Until then a script's cost is the pipeline's latency over its
		// scripts, an upper bound that a loaded machine inflates many
		// times: the budget is judged on what was measured, and a stretch
		// the estimate caused is given the polls it takes to come back.
		measured := func() bool {
			for _, n := range s.Nodes {
				if st := p.nodes[n.Addr]; n.Role == model.RolePrimary && (st == nil || !st.cost.measured) {
					return false
				}
			}
			return true
		}
		pace := time.NewTicker(50 * time.Millisecond)
		polls := 0
		settled := vtest.Within(30*time.Second, func() bool {
			<-pace.C
			s = pollOne(t, p)
			polls++
			return polls >= 5 && measured() && (tc.over || s.Poll.SweepEvery == time.Minute)
		})
		pace.Stop()
		if !settled {
			t.Errorf("budget %v: after %d polls, measured %v, the sweep every %v", tc.budget, polls, measured(), s.Poll.SweepEvery)
		}
		for _, n := range s.Nodes {
			if n.Load <= 0 || n.UsPerScript <= 0 {
				t.Errorf("budget %v: %s load %v, %v µs a script", tc.budget, n.Addr, n.Load, n.UsPerScript)
			}
		}
		stretched := s.Poll.SweepEvery > time.Minute
		if tc.over != (s.Poll.MinInterval > time.Second) || (!tc.over && s.Poll.MinInterval > 250*time.Millisecond) ||
			tc.over != stretched || s.Poll.Budget != tc.budget {
			t.Errorf("budget %v: min interval %v, sweep every %v", tc.budget, s.Poll.MinInterval, s.Poll.SweepEvery)
		}
	}
}

// trackingClients is INFO clients' tracking_clients of a node.
func trackingClients(t *testing.T, addr string) int {
	conn, err := testcluster.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	info, err := conn.String("INFO", "clients")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "tracking_clients:"); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	t.Fatalf("%s: no tracking_clients in INFO clients", addr)
	return 0
}

// Where most queues change at every poll, tracking costs the server more
// than it saves: the node is read in full with its tracking off (the
// server sends no invalidation), for a while; once the writes calm down,
// tracking comes back. shortDuration words the pause.
func TestTrackingOffWhenMostChange(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	var names []string
	for i := 0; i < 60; i++ {
		names = append(names, fmt.Sprintf("busy-%d", i))
	}
	write := func() {
		for _, q := range names {
			if _, err := echomq.Enqueue(ctx, c, q, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	p := New(c, Options{Pinned: names, Sweep: 24 * time.Hour, TrackingPause: 500 * time.Millisecond})
	defer p.Close()
	untilChanges(t, p)
	var s *model.Snapshot
	for i := 0; i < busyPolls; i++ { // every queue written before each poll
		write()
		s = pollOne(t, p)
	}
	s = pollOne(t, p)
	for _, n := range s.Nodes {
		if n.Tracking || !strings.Contains(n.Full, "most queues change at every poll: tracking off for 500ms") {
			t.Errorf("%s: tracking %v, full %q", n.Addr, n.Tracking, n.Full)
		}
	}
	for _, n := range cl.Nodes {
		vtest.Until(t, 30*time.Second, n.Addr()+" without tracking clients", func() bool { return trackingClients(t, n.Addr()) == 0 })
	}
	if q := s.Queue("busy-1"); q.Pending != int64(busyPolls+1) {
		t.Errorf("busy-1: pending %d", q.Pending)
	}
	// quiet again: after the pause the nodes are tracked again
	if s = untilChanges(t, p); s.Poll.Scripts != 0 {
		t.Errorf("tracking again, nothing written: %s", why(s))
	}
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{time.Minute, "1m"}, {16 * time.Minute, "16m"}, {time.Hour, "1h"}, {90 * time.Second, "1m30s"}, {500 * time.Millisecond, "500ms"}} {
		if got := shortDuration(c.d); got != c.want {
			t.Errorf("shortDuration(%v) = %q", c.d, got)
		}
	}
}

// Tracking costs the server an invalidation a key written: one hot queue
// written hundreds of times between polls, among idle ones, costs more
// than the scripts tracking saves, and the node's tracking goes off,
// though few of its queues change.
func TestTrackingOffWhenItCostsMore(t *testing.T) {
	cl, c := vtest.Cluster(t, 1)
	var names []string
	for i := 0; i < 40; i++ {
		names = append(names, fmt.Sprintf("idle-%d", i))
	}
	fill(t, c, map[string]want{})
	for _, q := range names {
		if _, err := echomq.Enqueue(ctx, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	p := New(c, Options{Pinned: names, Sweep: 24 * time.Hour, TrackingPause: time.Hour})
	defer p.Close()
	untilChanges(t, p)
	// busyPolls polls in a row once a script's time is measured (INFO
	// commandstats, a second apart): within 40 polls however slow the machine
	var s *model.Snapshot
	written := 1
	for i := 0; i < 40; i++ {
		for k := 0; k < 1000; k++ { // 2,000 keys: far more than 39 scripts saved
			if _, err := echomq.Enqueue(ctx, c, names[0], []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		written += 1000
		if s = pollOne(t, p); !s.Nodes[0].Tracking {
			break
		}
	}
	s = pollOne(t, p)
	if n := s.Nodes[0]; n.Tracking || n.Full != "tracking costs more than it saves: off for 1h" {
		t.Fatalf("tracking %v, full %q (%s)", n.Tracking, n.Full, why(s))
	}
	if q := s.Queue(names[0]); q.Pending != int64(written) {
		t.Errorf("%s: pending %d, want %d", names[0], q.Pending, written)
	}
	vtest.Until(t, 30*time.Second, "no tracking client left", func() bool { return trackingClients(t, cl.Nodes[0].Addr()) == 0 })
}

// INFO commandstats, as Redis 7 and Valkey 8 word it, is read by name.
func TestCommandStats(t *testing.T) {
	info := "# Commandstats\r\ncmdstat_evalsha_ro:calls=7504,usec=150080,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r\n" +
		"cmdstat_client|tracking:calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0\r\n"
	st := commandStats(info)
	if st["evalsha_ro"] != [2]int64{7504, 150080} || st["client|tracking"] != [2]int64{3, 12} || len(st) != 2 {
		t.Errorf("%v", st)
	}
	if c, u, ok := evalshaRo(info); !ok || c != 7504 || u != 150080 {
		t.Errorf("evalsha_ro: %d %d %v", c, u, ok)
	}
	if _, _, ok := evalshaRo("# Commandstats\r\n"); ok {
		t.Error("no evalsha_ro yet, read as one")
	}
}
