package poller

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// The servers' own load per slot. On Valkey 8 with
// cluster-slot-stats-enabled: a workload hammering one queue makes its
// slot the hottest by CPU, and the key counts are COUNTKEYSINSLOT's. On a
// server without CLUSTER SLOT-STATS (Redis 7) every primary says so in
// words. The test runs on whichever server the suite runs on (CI runs it
// on both), never skipped.
func TestSlotStats(t *testing.T) {
	name, major, err := testcluster.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	valkey8 := name == "valkey" && major >= 8
	var extra []string
	if valkey8 {
		extra = []string{"cluster-slot-stats-enabled yes"}
	}
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, Extra: extra})
	c := vtest.Client(t, cl)
	fill(t, c, map[string]want{"cold-a": {pending: 3}, "cold-b": {pending: 2}, "hot": {pending: 1}})
	p := New(c, Options{Full: true, SlotStatsEvery: 50 * time.Millisecond})
	defer p.Close()
	if err := p.DiscoverAll(ctx); err != nil {
		t.Fatal(err)
	}
	hot := keyspace.QueueSlot("hot")
	var s *model.Snapshot
	deadline := time.Now().Add(60 * time.Second)
	for {
		// the hot queue's slot works between two reads, with plain commands
		// on its keys: Valkey 8.0 counts no CPU per slot for scripts (EVAL,
		// EVALSHA), and EchoMQ's own writes are scripts (the README says so)
		pending, _ := keyspace.QueueKey("hot", keyspace.TypePending)
		for i := 0; i < 300; i++ {
			if err := c.Do(ctx, c.B().Zadd().Key(pending).ScoreMember().ScoreMember(float64(i), "m"+strconv.Itoa(i)).Build()).Error(); err != nil {
				t.Fatal(err)
			}
			if err := c.Do(ctx, c.B().Zrange().Key(pending).Min("0").Max("-1").Build()).Error(); err != nil {
				t.Fatal(err)
			}
		}
		if s, err = p.Poll(ctx); err != nil {
			t.Fatal(err)
		}
		// until every primary was read, and on Valkey until the hot slot's
		// node has a rate over a window that held the work
		if s.Load != nil && len(s.Load.Nodes) == 3 && (!valkey8 || (s.Load.CPU != nil && s.Load.CPU[hot] > 0)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot stats from every primary in 60s: %+v", s.Load)
		}
	}
	if !valkey8 {
		for addr, n := range s.Load.Nodes {
			if n.Mode != model.SlotStatsNone || !strings.Contains(n.Why, "has no CLUSTER SLOT-STATS (Valkey 8 and newer have it)") {
				t.Errorf("%s on %s %d: %+v", addr, name, major, n)
			}
		}
		return
	}
	for addr, n := range s.Load.Nodes {
		if n.Mode != model.SlotStatsFull || n.Cost <= 0 {
			t.Errorf("%s: %+v", addr, n)
		}
		t.Logf("%s: one read of its slots (a third of 16384) cost the server %v", addr, n.Cost)
	}
	top := 0
	for sl, v := range s.Load.CPU {
		if v > s.Load.CPU[top] {
			top = sl
		}
	}
	if top != int(hot) {
		t.Errorf("the hottest slot by CPU is %d (%.0f µs/s), not the hot queue's %d (%.0f µs/s)", top, s.Load.CPU[top], hot, s.Load.CPU[hot])
	}
	for _, q := range []string{"hot", "cold-a", "cold-b"} {
		slot := keyspace.QueueSlot(q)
		owner, err := cl.Owner(int(slot))
		if err != nil {
			t.Fatal(err)
		}
		conn, err := testcluster.Dial(cl.Nodes[owner].Addr())
		if err != nil {
			t.Fatal(err)
		}
		v, err := conn.Do("CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(int(slot)))
		conn.Close()
		if n, _ := v.(int64); err != nil || n != s.Load.Keys[slot] {
			t.Errorf("%s: slot %d holds %d keys by SLOT-STATS, %v by COUNTKEYSINSLOT (%v)", q, slot, s.Load.Keys[slot], v, err)
		}
	}
}

// A primary whose slot stats are key counts alone is read again after
// SlotStatsKeysEvery, not SlotStatsEvery, unless one of its slots moved
// since its last read; one with CPU and network is read at
// SlotStatsEvery.
func TestSlotStatsKeysAloneReadLessOften(t *testing.T) {
	p := New(nil, Options{})
	now := time.Now()
	ranges := []model.Range{{Lo: 0, Hi: 99}, {Lo: 5000, Hi: 5460}}
	st := func(mode string, ago time.Duration) *nodeState {
		return &nodeState{slots: slotStatsState{node: model.SlotStatsNode{Mode: mode, ReadAt: now.Add(-ago)}}}
	}
	for _, c := range []struct {
		mode string
		ago  time.Duration
		due  bool
	}{
		{model.SlotStatsKeys, SlotStatsEvery + time.Second, false},
		{model.SlotStatsKeys, SlotStatsKeysEvery + time.Second, true},
		{model.SlotStatsFull, SlotStatsEvery + time.Second, true},
		{model.SlotStatsFull, SlotStatsEvery - time.Second, false},
	} {
		if got := p.slotStatsDue(st(c.mode, c.ago), ranges, now); got != c.due {
			t.Errorf("%s read %v ago: due %v, not %v", c.mode, c.ago, got, c.due)
		}
	}
	p.movedAt[7000] = now.Add(-time.Second) // not one of its slots
	if p.slotStatsDue(st(model.SlotStatsKeys, SlotStatsEvery+time.Second), ranges, now) {
		t.Error("a slot of another node moved, and the key counts are read before their time")
	}
	p.movedAt[5460] = now.Add(-time.Second)
	if !p.slotStatsDue(st(model.SlotStatsKeys, SlotStatsEvery+time.Second), ranges, now) {
		t.Error("one of its slots moved since its last read, and its key counts are not read again")
	}
}
