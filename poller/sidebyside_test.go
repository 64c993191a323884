package poller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// held is a job a worker of the side-by-side workload holds.
type held struct {
	queue, id string
	attempts  int64
}

// sideWorkload writes at random to a few hot queues and, less often, to
// the rest: enqueue, claim with short leases, ack, requeue, requeue the
// expired, drain, and workers that die holding their job (its lease runs
// out with no write).
type sideWorkload struct {
	c      valkey.Client
	queues []string
	mu     sync.Mutex
	held   []held
}

func (w *sideWorkload) pick(r *rand.Rand) string {
	if r.IntN(10) < 8 {
		return w.queues[r.IntN(6)]
	}
	return w.queues[r.IntN(len(w.queues))]
}

// step is one random operation; errors (a failover in its middle, a fence
// lost to a requeue) are the workload's business, not the test's.
func (w *sideWorkload) step(ctx context.Context, r *rand.Rand) {
	q := w.pick(r)
	switch n := r.IntN(100); {
	case n < 40:
		_, _ = echomq.Enqueue(ctx, w.c, q, []byte("x"))
	case n < 70:
		lease := time.Duration(30+r.IntN(1500)) * time.Millisecond
		j, ok, err := echomq.Claim(ctx, w.c, q, lease)
		if err != nil || !ok || r.IntN(4) == 0 {
			return // none, or a worker that dies holding it
		}
		w.mu.Lock()
		w.held = append(w.held, held{q, j.ID, j.Attempts})
		w.mu.Unlock()
	case n < 97:
		w.mu.Lock()
		if len(w.held) == 0 {
			w.mu.Unlock()
			return
		}
		i := r.IntN(len(w.held))
		h := w.held[i]
		w.held = append(w.held[:i], w.held[i+1:]...)
		w.mu.Unlock()
		switch {
		case n < 85:
			_ = echomq.Ack(ctx, w.c, h.queue, h.id, h.attempts)
		case n < 92:
			_ = echomq.Requeue(ctx, w.c, h.queue, h.id, h.attempts)
		default:
			_, _ = echomq.RequeueExpired(ctx, w.c, h.queue, 5)
		}
	default:
		_, _ = echomq.Drain(ctx, w.c, q)
	}
}

// run writes with two workers until ctx ends.
func (w *sideWorkload) run(ctx context.Context, seed uint64) {
	var wg sync.WaitGroup
	for k := uint64(0); k < 2; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, k))
			for ctx.Err() == nil {
				w.step(ctx, r)
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wg.Wait()
}

// whole reports whether a snapshot read every node and every queue.
func whole(s *model.Snapshot) bool {
	if s == nil {
		return false
	}
	if up, all := s.NodesUp(); up != all || all == 0 {
		return false
	}
	for _, q := range s.Queues.All() {
		if q.Stale || (q.Err != "" && !strings.Contains(q.Err, "no keys")) {
			return false
		}
	}
	return true
}

// notWhole says what a snapshot missed.
func notWhole(s *model.Snapshot) string {
	if s == nil {
		return "no snapshot"
	}
	var out []string
	for _, n := range s.Nodes {
		if n.Role == model.RolePrimary && !n.Up() {
			out = append(out, fmt.Sprintf("%s %s %s", n.Addr, n.Health, n.Err))
		}
	}
	for _, q := range s.Queues.All() {
		if q.Stale || (q.Err != "" && !strings.Contains(q.Err, "no keys")) {
			out = append(out, fmt.Sprintf("%s stale %v %s", q.Name, q.Stale, q.Err))
		}
	}
	return strings.Join(out, "; ")
}

// roleOf is "master" or "slave", by INFO replication.
func roleOf(t *testing.T, addr string) string {
	conn, err := testcluster.Dial(addr)
	if err != nil {
		return ""
	}
	defer conn.Close()
	info, err := conn.String("INFO", "replication")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "role:"); ok {
			return v
		}
	}
	return ""
}

// Change-driven and full polling side by side on one real cluster under a
// random workload, with a failover, a slot move and a server restart in
// the middle: at every checkpoint (the workload paused) the two snapshots
// agree on every queue's counts and oldest pending job. Leases that end
// between the two reads are the one allowance, counted from the active
// sets themselves. The sweep is off (an hour), so that nothing but the
// tracking, the deadlines and what cannot be proven unchanged keeps the
// change-driven side right. EMQTOP_SIDE_ROUNDS sets the checkpoints [24];
// run it many times with -count.
func TestChangeDrivenAgreesWithFull(t *testing.T) {
	rounds := 24
	if v, err := strconv.Atoi(os.Getenv("EMQTOP_SIDE_ROUNDS")); err == nil && v >= 8 {
		rounds = v
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, %d rounds", seed, rounds)
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, Replicas: 1})
	c := vtest.Client(t, cl)
	queues := make([]string, 48)
	for i := range queues {
		queues[i] = fmt.Sprintf("side-%d", i)
	}
	w := &sideWorkload{c: c, queues: queues}
	// both pollers on read-only clients of their own, as emqtop runs them
	// (Dial: the promoted replica may not be among valkey-go's own nodes),
	// the trackers on held connections of their own (DialHeld)
	cfg := Config{Addrs: cl.Addrs()}
	dial := cfg.Dialer()
	change := New(ReadOnly(vtest.Client(t, cl)), Options{Pinned: queues, Sweep: time.Hour, TopologyEvery: 200 * time.Millisecond, Dial: dial, DialHeld: cfg.HeldDialer()})
	full := New(ReadOnly(vtest.Client(t, cl)), Options{Pinned: queues, Full: true, TopologyEvery: 200 * time.Millisecond, Dial: dial})
	defer change.Close()
	defer full.Close()
	change.SetDetail(queues[0]) // the operator looks at one: read every poll

	rng := rand.New(rand.NewPCG(seed, 99))
	changesOnly := 0
	for round := 0; round < rounds; round++ {
		// the workload writes while the change-driven side polls
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(150+rng.IntN(150))*time.Millisecond)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(ctx, seed+uint64(round))
		}()
		for ctx.Err() == nil {
			_, _ = change.Poll(context.Background())
			time.Sleep(time.Duration(10+rng.IntN(40)) * time.Millisecond)
		}
		cancel()
		wg.Wait()

		switch round {
		case rounds / 4:
			sideFailover(t, cl)
		case rounds / 2:
			slot := int(keyspace.QueueSlot(queues[1])) // a hot queue's slot
			from, err := cl.Owner(slot)
			if err != nil {
				t.Fatal(err)
			}
			to := -1
			for i, n := range cl.Nodes {
				if i != from && roleOf(t, n.Addr()) == "master" {
					to = i
					break
				}
			}
			if err := cl.MoveSlots(from, to, slot, slot); err != nil {
				t.Fatal(err)
			}
			t.Logf("round %d: slot %d moved from %s to %s", round, slot, cl.Nodes[from].Addr(), cl.Nodes[to].Addr())
		case 3 * rounds / 4:
			owner, err := cl.Owner(int(keyspace.QueueSlot(queues[2])))
			if err != nil {
				t.Fatal(err)
			}
			if err := cl.Restart(owner); err != nil {
				t.Fatal(err)
			}
			t.Logf("round %d: %s restarted (its data gone)", round, cl.Nodes[owner].Addr())
		}
		if round == rounds/4 || round == 3*rounds/4 {
			if err := cl.WaitHealthy(30 * time.Second); err != nil {
				t.Fatal(err)
			}
		}
		if sideCheckpoint(t, c, change, full, queues, round) {
			changesOnly++
		}
	}
	// the comparison proves something only if the change-driven side did
	// read changes only, most of the time
	if changesOnly < rounds/2 {
		t.Fatalf("only %d of %d checkpoints were change-driven polls that carried queues over", changesOnly, rounds)
	}
	t.Logf("%d checkpoints, %d of them change-driven", rounds, changesOnly)
}

// sideFailover promotes a replica (CLUSTER FAILOVER) and waits for it.
func sideFailover(t *testing.T, cl *testcluster.Cluster) {
	for _, n := range cl.Nodes {
		if roleOf(t, n.Addr()) != "slave" {
			continue
		}
		conn, err := testcluster.Dial(n.Addr())
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Do("CLUSTER", "FAILOVER")
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		vtest.Until(t, time.Minute, n.Addr()+" a primary", func() bool { return roleOf(t, n.Addr()) == "master" })
		t.Logf("failover: %s is a primary", n.Addr())
		return
	}
	t.Fatal("no replica to fail over to")
}

// sideCheckpoint polls both sides with the workload paused until both
// read everything, and compares them. It reports whether the change-driven
// poll read changes only and carried queues over.
func sideCheckpoint(t *testing.T, c valkey.Client, change, full *Poller, queues []string, round int) bool {
	t.Helper()
	var sc, sf *model.Snapshot
	var from, to time.Time
	vtest.Within(time.Minute, func() bool {
		from = time.Now()
		sc, _ = change.Poll(context.Background())
		sf, _ = full.Poll(context.Background())
		to = time.Now()
		return whole(sc) && whole(sf)
	}) // and held below
	if !whole(sc) || !whole(sf) {
		t.Fatalf("round %d: the pollers never read every node again: change-driven %s, full %s", round, notWhole(sc), notWhole(sf))
	}
	checkSums(t, change, sc)
	checkSums(t, full, sf)
	for _, name := range queues {
		a, b := sc.Queue(name), sf.Queue(name)
		if a == nil || b == nil {
			t.Fatalf("round %d: %s missing (change %v, full %v)", round, name, a != nil, b != nil)
		}
		if a.Pending != b.Pending || a.Active != b.Active || a.Scheduled != b.Scheduled || a.OldestScoreMs != b.OldestScoreMs || a.Err != b.Err {
			t.Fatalf("round %d: %s differs: change-driven %d/%d/%d oldest %d %q, full %d/%d/%d oldest %d %q (read %s %v)",
				round, name, a.Pending, a.Active, a.Scheduled, a.OldestScoreMs, a.Err, b.Pending, b.Active, b.Scheduled, b.OldestScoreMs, b.Err, sc.Poll.Read, sc.Poll.Why)
		}
		if a.Expired != b.Expired {
			// allowed only for leases that ended between the two reads
			// (50ms either side for the clocks' reading)
			k, _ := keyspace.QueueKey(name, "active")
			n, err := c.Do(context.Background(), c.B().Zcount().Key(k).Min(strconv.FormatInt(from.UnixMilli()-50, 10)).Max(strconv.FormatInt(to.UnixMilli()+50, 10)).Build()).AsInt64()
			if err != nil {
				t.Fatal(err)
			}
			if d := b.Expired - a.Expired; d < 0 || d > n {
				t.Fatalf("round %d: %s expired: change-driven %d, full %d, with %d leases ending between the reads (read %s %v)",
					round, name, a.Expired, b.Expired, n, sc.Poll.Read, sc.Poll.Why)
			}
		}
	}
	return sc.Poll.Read == "changes" && sc.Poll.Carried > 0
}
