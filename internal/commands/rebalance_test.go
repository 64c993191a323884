package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// The plan on a real cluster, applied: most jobs on one primary; emqtop
// rebalance --by jobs --json gives moves; they are applied, step by step
// as its commands say (IMPORTING, MIGRATING, MIGRATE, NODE), while a
// claim/ack workload runs; afterwards every primary is within the bound
// the plan promised, and no job was lost or doubled (counted before and
// after, less the acks).
func TestRebalanceApplied(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	ctx := context.Background()
	// 12 busy queues on the first primary's slots, a few jobs elsewhere
	var busy []string
	for i := 0; len(busy) < 12; i++ {
		q := fmt.Sprintf("skew-%d", i)
		if o, _ := cl.Owner(int(keyspace.QueueSlot(q))); o == 0 {
			busy = append(busy, q)
		}
	}
	total := 0
	for _, q := range busy {
		for j := 0; j < 40; j++ {
			if _, err := echomq.Enqueue(ctx, c, q, []byte("x")); err != nil {
				t.Fatal(err)
			}
			total++
		}
	}
	for i := 0; i < 6; i++ {
		q := fmt.Sprintf("light-%d", i)
		if _, err := echomq.Enqueue(ctx, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
		total++
	}
	addr := cl.Nodes[0].Addr()
	var out, errb bytes.Buffer
	if rc := Main([]string{"rebalance", "--by", "jobs", "--json", "--addr", addr}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d %s", rc, errb.String())
	}
	var plan jsonPlan
	if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(plan.Moves) == 0 || plan.WhyNot != "" || plan.Before[addr] < 0.9 {
		t.Fatalf("a skewed cluster gave %d moves, why not %q, %s at %.2f", len(plan.Moves), plan.WhyNot, addr, plan.Before[addr])
	}
	if !strings.Contains(strings.Join(plan.Commands, "\n"), "CLUSTER SETSLOT") {
		t.Errorf("no commands: %v", plan.Commands)
	}
	// a claim/ack workload while the slots move
	stop := make(chan struct{})
	var acked, added atomic.Int64
	var wg sync.WaitGroup
	var werr atomic.Value
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			q := busy[i%len(busy)]
			var j echomq.Job
			var ok bool
			err := echomq.TryAgain(ctx, func() (err error) { j, ok, err = echomq.Claim(ctx, c, q, time.Minute); return err })
			if err == nil && ok {
				if err = echomq.Ack(ctx, c, q, j.ID, j.Attempts); err == nil {
					acked.Add(1)
					// a job for each one acked: the load the plan spread
					// stays where it was, however long the moves take (a
					// slow run acked every busy job and measured the
					// spread of the six light ones)
					err = echomq.TryAgain(ctx, func() (err error) { _, err = echomq.Enqueue(ctx, c, q, []byte("x")); return err })
					if err == nil {
						added.Add(1)
					}
				}
			}
			if err != nil {
				werr.Store(err)
				return
			}
		}
	}()
	byAddr := map[string]int{}
	for i, n := range cl.Nodes {
		byAddr[n.Addr()] = i
	}
	// the dashboard's poller follows the slots as they move: marked
	// migrating mid-move, every queue read (ASK followed), none failed
	pc, err := poller.Connect(poller.Config{Addrs: []string{addr}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	pl := poller.New(pc, poller.Options{Full: true, TopologyEvery: 100 * time.Millisecond})
	defer pl.Close()
	if err := pl.DiscoverAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range plan.Moves {
		mv, err := cl.BeginMove(int(m.Slot), byAddr[m.From], byAddr[m.To])
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := keyspace.KeysOf(busyIn(busy, m.Slot))
		if err := mv.Migrate(keys.Pending); err != nil { // half moved: pending on the target, the rest not
			t.Fatal(err)
		}
		// marked once the poller has read the topology since the move
		// began: at once where a poll met a redirection, else within its
		// refresh period
		var s *model.Snapshot
		vtest.Until(t, 30*time.Second, fmt.Sprintf("a poll marking slot %d moving", m.Slot), func() bool {
			s, err = pl.Poll(ctx)
			return err == nil && s.Topology.Migrating(m.Slot)
		})
		// the queue whose keys are split cannot be read whole (TRYAGAIN):
		// it keeps its last figures, marked stale, with the reason in
		// words; every other queue is read
		for _, q := range s.Queues.All() {
			moving := q.Slot == m.Slot
			if moving && q.Unread && (!q.Stale || !strings.Contains(q.Err, "its slot is being moved")) {
				t.Errorf("mid-move, %s: stale %v, %q", q.Name, q.Stale, q.Err)
			}
			if !moving && (q.Unread || q.Stale) {
				t.Errorf("mid-move, %s (slot %d, not moving): unread %v stale %v (%s)", q.Name, q.Slot, q.Unread, q.Stale, q.Err)
			}
		}
		if err := mv.MigrateAll(); err != nil {
			t.Fatal(err)
		}
		if err := mv.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if e := werr.Load(); e != nil {
		t.Fatalf("the workload failed during the moves: %v", e)
	}
	if err := cl.WaitHealthy(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	// the spread now, and the jobs: none lost, none doubled
	out.Reset()
	if rc := Main([]string{"rebalance", "--by", "jobs", "--json", "--addr", addr}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d %s", rc, errb.String())
	}
	var after jsonPlan
	if err := json.Unmarshal(out.Bytes(), &after); err != nil {
		t.Fatal(err)
	}
	for a, share := range after.Before {
		if share > (1+plan.Tolerance)/3+0.02 { // the acks moved the load a little since the plan
			t.Errorf("%s holds %.2f of the jobs after the moves; the plan said %.2f", a, share, plan.After[a])
		}
	}
	var doc jsonSnapshot
	out.Reset()
	if rc := Main([]string{"--once", "--json", "--addr", addr}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d %s", rc, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var jobs int64
	for _, q := range doc.Queues {
		jobs += q.Pending + q.Active
	}
	if want := int64(total) + added.Load() - acked.Load(); jobs != want {
		t.Errorf("%d jobs after the moves, want %d (%d enqueued, %d more during the moves, %d acked)", jobs, want, total, added.Load(), acked.Load())
	}
	t.Logf("%d moves, %d acks during them; shares before %v, planned %v, after %v", len(plan.Moves), acked.Load(), plan.Before, plan.After, after.Before)
}

// busyIn is the busy queue in slot, "" when none (the plan moves only slots
// holding load: there is one).
func busyIn(busy []string, slot uint16) string {
	for _, q := range busy {
		if keyspace.QueueSlot(q) == slot {
			return q
		}
	}
	return ""
}
