package poller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

var ctx = context.Background()

// fill writes, through echomq, pending/active/expired jobs into queues and
// returns what it wrote.
type want struct{ pending, active, expired int64 }

func fill(t testing.TB, c valkey.Client, queues map[string]want) {
	t.Helper()
	for q, w := range queues {
		for i := int64(0); i < w.pending+w.active+w.expired; i++ {
			if _, err := echomq.Enqueue(ctx, c, q, []byte(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := int64(0); i < w.expired; i++ {
			if _, _, err := echomq.Claim(ctx, c, q, time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
		for i := int64(0); i < w.active; i++ {
			if _, _, err := echomq.Claim(ctx, c, q, time.Hour); err != nil {
				t.Fatal(err)
			}
		}
	}
	for q, w := range queues {
		vtest.UntilExpired(t, c, q, w.expired)
	}
}

func pollAll(t testing.TB, c valkey.Client, opt Options, detail ...string) (*Poller, *model.Snapshot) {
	t.Helper()
	p := New(c, opt)
	p.SetDetail(detail...)
	t.Cleanup(p.Close)
	if err := p.DiscoverAll(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := p.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p, s
}

func checkCounts(t *testing.T, s *model.Snapshot, wants map[string]want) {
	t.Helper()
	for name, w := range wants {
		q := s.Queue(name)
		if q == nil {
			t.Errorf("queue %s not in the snapshot", name)
			continue
		}
		if q.Err != "" || q.Pending != w.pending || q.Active != w.active+w.expired || q.Expired != w.expired {
			t.Errorf("%s: pending %d active %d expired %d err %q; want %d %d %d",
				name, q.Pending, q.Active, q.Expired, q.Err, w.pending, w.active+w.expired, w.expired)
		}
		if q.Slot != keyspace.QueueSlot(name) {
			t.Errorf("%s: slot %d", name, q.Slot)
		}
		if w.pending > 0 && q.OldestPendingAgeMs < 0 {
			t.Errorf("%s: no oldest pending age", name)
		}
	}
}

func testCounts(t *testing.T, primaries int) {
	cl, c := vtest.Cluster(t, primaries)
	a, b := keyspace.SlotMates("tenant-")
	wants := map[string]want{
		"orders": {pending: 5, active: 3, expired: 2},
		"fills":  {pending: 0, active: 1, expired: 1},
		"emails": {pending: 40},
		a:        {pending: 2, active: 1},
		b:        {pending: 1, expired: 1},
	}
	fill(t, c, wants)
	_, s := pollAll(t, c, Options{DetailAll: true}, "orders")
	checkCounts(t, s, wants)
	if s.Queues.Len() != len(wants) {
		t.Errorf("%d queues, want %d", s.Queues.Len(), len(wants))
	}
	// one script per occupied slot: the shared pair costs one script
	if want := len(wants) - 1; s.Poll.Scripts != want {
		t.Errorf("scripts = %d, want %d (one per occupied slot)", s.Poll.Scripts, want)
	}
	// one pipelined round trip per node
	if s.Poll.RoundTrips != len(cl.Nodes) {
		t.Errorf("round trips = %d, want %d", s.Poll.RoundTrips, len(cl.Nodes))
	}
	up, total := s.NodesUp()
	if up != primaries && !(primaries == 0 && up == 1) || up != total {
		t.Errorf("nodes up %d/%d", up, total)
	}
	o := s.Queue("orders")
	if len(o.PendingJobs()) != 5 || len(o.ActiveJobs()) != 5 {
		t.Fatalf("orders detail: %d pending, %d active jobs", len(o.PendingJobs()), len(o.ActiveJobs()))
	}
	for i, j := range o.ActiveJobs() {
		if !j.Valid || !j.AttemptsOK || j.Attempts != 1 {
			t.Errorf("active job %d: %+v", i, j)
		}
		if i > 0 && j.Score < o.ActiveJobs()[i-1].Score {
			t.Error("active jobs not by deadline")
		}
	}
	var hist int64
	for _, h := range o.Hist() {
		hist += h
	}
	if hist != 5 || len(o.Hist()) != len(s.Edges)+1 {
		t.Errorf("histogram %v over %d edges sums to %d, want 5", o.Hist(), len(s.Edges), hist)
	}
	// the two expired leases lie at or before now: in the buckets up to
	// the edge 0; the three live ones (an hour out) after the last edge
	var before int64
	for i, e := range s.Edges {
		if e <= 0 {
			before += o.Hist()[i]
		}
	}
	if before != 2 || o.Hist()[len(o.Hist())-1] != 3 {
		t.Errorf("histogram %v: %d at or before now (want 2), %d beyond the window (want 3)", o.Hist(), before, o.Hist()[len(o.Hist())-1])
	}
	if f := s.Queue("fills"); len(f.Hist()) > 1 {
		t.Errorf("fills was not asked for its histogram but has %v", f.Hist())
	}
	if s.ServerTimeMs == 0 {
		t.Error("no server time")
	}
}

func TestCountsCluster(t *testing.T)    { testCounts(t, 3) }
func TestCountsStandalone(t *testing.T) { testCounts(t, 0) }

func TestWrongTypeFailsOnlyItsQueue(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	// find a queue in the same slot as "orders"' neighbour so both share a script
	a, b := keyspace.SlotMates("tenant-")
	fill(t, c, map[string]want{a: {pending: 3}, "orders": {pending: 1}})
	ak, _ := keyspace.QueueKey(b, keyspace.TypeActive)
	pk, _ := keyspace.QueueKey(b, keyspace.TypePending)
	c.Do(ctx, c.B().Zadd().Key(pk).ScoreMember().ScoreMember(1, "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY").Build())
	if err := c.Do(ctx, c.B().Set().Key(ak).Value("not a zset").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	_, s := pollAll(t, c, Options{})
	qb := s.Queue(b)
	if qb == nil || !strings.Contains(qb.Err, "WRONGTYPE") || !strings.Contains(qb.Err, ak) {
		t.Fatalf("queue %s: %+v, want a WRONGTYPE error naming %s", b, qb, ak)
	}
	checkCounts(t, s, map[string]want{a: {pending: 3}, "orders": {pending: 1}})
}

func TestKilledNodeReportedOthersFresh(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	qs := map[string]want{}
	for i := 0; i < 30; i++ {
		qs[fmt.Sprintf("q-%d", i)] = want{pending: int64(i%4 + 1)}
	}
	fill(t, c, qs)
	p, s := pollAll(t, c, Options{Timeout: 500 * time.Millisecond})
	checkCounts(t, s, qs)
	cl.Kill(1)
	dead := cl.Nodes[1].Addr()
	var s2 *model.Snapshot
	for i := 0; i < 3; i++ {
		var err error
		if s2, err = p.Poll(ctx); err != nil {
			t.Fatal(err)
		}
	}
	up, total := s2.NodesUp()
	if up != 2 || total != 3 {
		t.Errorf("nodes up %d/%d after a kill, want 2/3", up, total)
	}
	for _, n := range s2.Nodes {
		if (n.Addr == dead) != (n.Err != "") {
			t.Errorf("node %s: err %q", n.Addr, n.Err)
		}
	}
	for _, q := range s2.Queues.All() {
		if (q.Node.Addr() == dead) != q.Stale {
			t.Errorf("queue %s on %s: stale=%v", q.Name, q.Node, q.Stale)
		}
		if q.Pending != qs[q.Name].pending {
			t.Errorf("queue %s lost its figures: %d", q.Name, q.Pending)
		}
	}
}

func TestForeignKeysAreCollected(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	fill(t, c, map[string]want{"orders": {pending: 1}})
	for _, k := range []string{"emq:{a}}:pending", "emq:{a}:lanes", "emq:{a}:job:nope"} {
		if err := c.Do(ctx, c.B().Zadd().Key(k).ScoreMember().ScoreMember(1, "x").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	_, s := pollAll(t, c, Options{})
	if s.ForeignCount != 3 || s.Queues.Len() != 1 {
		t.Fatalf("foreign %d %+v, queues %d", s.ForeignCount, s.ForeignKeys, s.Queues.Len())
	}
}

// TestReplicasOnRedis7: --replicas on servers older than Valkey 8 reads
// from the primaries and says why; on Valkey 8 it reads from replicas.
func TestReplicasOnOlderServers(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, Replicas: 1})
	cfg := Config{Addrs: cl.Addrs()[:1], Replicas: true, ReadOnly: true}
	c, err := Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fill(t, vtest.Client(t, cl), map[string]want{"orders": {pending: 2}, "fills": {pending: 1}})
	if err := cl.WaitReplicated(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	p, _ := pollAll(t, c, Options{Replicas: true, Dial: cfg.Dialer()})
	s, err := p.Poll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, map[string]want{"orders": {pending: 2}, "fills": {pending: 1}})
	var replicas int
	for _, n := range s.Nodes {
		if n.Role == model.RoleReplica {
			replicas++
		}
	}
	if replicas != 3 {
		t.Fatalf("%d replicas in the topology", replicas)
	}
	for _, n := range s.Nodes {
		if n.Err != "" || n.Server == "" {
			t.Errorf("node %s %s: server %q err %q", n.Addr, n.Role, n.Server, n.Err)
		}
	}
	server := s.Nodes[len(s.Nodes)-1].Server
	if replicaSafe(server) {
		for _, q := range s.Queues.All() {
			if !q.Elsewhere {
				t.Errorf("%s read from its primary on %s", q.Name, server)
			}
		}
		return
	}
	if len(s.Notes) == 0 || !strings.Contains(strings.Join(s.Notes, " "), "from its primary") {
		t.Errorf("no note on why replicas are not read (%s): %v", server, s.Notes)
	}
	for _, q := range s.Queues.All() {
		if q.Elsewhere {
			t.Errorf("%s read from another node than its primary %s, on %s", q.Name, q.Node, server)
		}
	}
}

// TestVanishedQueueDropped: a queue whose keys are gone leaves the
// snapshot after the next full discovery pass and the topology read that
// pass asks for (until then its slot might have moved), and no sooner.
func TestVanishedQueueDropped(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	fill(t, c, map[string]want{"orders": {pending: 1}, "fills": {pending: 1}})
	p, s := pollAll(t, c, Options{RediscoverEvery: time.Millisecond}) // a pass at every poll
	if s.Queue("orders") == nil {
		t.Fatal("orders not discovered")
	}
	k, _ := keyspace.KeysOf("orders")
	if err := c.Do(ctx, c.B().Del().Key(k.Pending).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	vtest.Within(10*time.Second, func() bool {
		s = pollOne(t, p)
		return s.Queue("orders") == nil
	}) // and what the last poll says is held below
	if s.Queue("orders") != nil || s.Queue("fills") == nil {
		t.Errorf("after full passes: orders %v, fills %v", s.Queue("orders") != nil, s.Queue("fills") != nil)
	}
}

// TestPipelineInRounds: a node's scripts go in rounds of at most
// RoundQueues queues (a million queues in one pipeline outlived the
// connection's write timeout and left every queue stale); every queue is
// read, in as many round trips as the rounds, and the figures are those of
// one pipeline.
func TestPipelineInRounds(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	wants := map[string]want{}
	for i := 0; i < 600; i++ {
		wants[fmt.Sprintf("r-%03d", i)] = want{pending: int64(1 + i%3)}
	}
	fill(t, c, wants)
	var names []string
	for q := range wants {
		names = append(names, q)
	}
	p := New(c, Options{Pinned: names, Full: true, RoundQueues: 50})
	defer p.Close()
	s := pollN(t, p, 2)
	for _, q := range s.Queues.All() {
		if q.Stale || q.Err != "" || q.Pending != wants[q.Name].pending {
			t.Fatalf("queue %s: stale %v err %q pending %d, want %d", q.Name, q.Stale, q.Err, q.Pending, wants[q.Name].pending)
		}
	}
	if s.Queues.Len() != len(wants) {
		t.Fatalf("%d queues, want %d", s.Queues.Len(), len(wants))
	}
	// about 200 queues a primary in rounds of at most 50: 4 or more each
	for _, n := range s.Nodes {
		if n.Role == model.RolePrimary && n.Trips < 4 {
			t.Errorf("node %s: %d round trips for %d queues in rounds of 50", n.Addr, n.Trips, n.Queues)
		}
	}
}

// TestTopologyKeptWhenUnchanged: a refresh that reads the same topology
// keeps the poller's, so the queue list and the plan derived from it are
// kept too (a new one every 5 s rebuilt both: 0.7 s of a poll at a
// million queues).
func TestTopologyKeptWhenUnchanged(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	fill(t, c, map[string]want{"a": {pending: 1}, "b": {pending: 2}})
	p := New(c, Options{Pinned: []string{"a", "b"}})
	defer p.Close()
	pollN(t, p, 2)
	topo, plans := p.topo, p.plans
	p.refreshTopology(ctx, false)
	pollN(t, p, 1)
	if p.topo != topo || len(p.plans) == 0 || &p.plans[0] != &plans[0] {
		t.Fatal("a refresh of an unchanged cluster made a new topology or plan")
	}
}

// TestScriptsKeptForSmallPlansOnly: a plan of at most PinScriptsUpTo
// queues keeps its built scripts for the next full read; a larger one
// builds them for each read and keeps none (140 MB at a million queues).
// Both read the same figures. (Each slot by its own script: grouped
// calls, group.go, are built for each read.)
func TestScriptsKeptForSmallPlansOnly(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	wants := map[string]want{}
	var names []string
	for i := 0; i < 40; i++ {
		q := fmt.Sprintf("k-%02d", i)
		wants[q], names = want{pending: int64(1 + i%4)}, append(names, q)
	}
	fill(t, c, wants)
	for _, upTo := range []int{40, 39} {
		p := New(c, Options{Pinned: names, Full: true, PinScriptsUpTo: upTo, NoGroup: true})
		s := pollN(t, p, 2)
		checkCounts(t, s, wants)
		kept := 0
		for _, np := range p.plans {
			for _, b := range np.batches {
				if b.cmd != nil {
					kept++
				}
			}
		}
		if upTo == 40 && kept != s.Poll.Scripts || upTo == 39 && kept != 0 {
			t.Errorf("a plan of 40 queues, scripts kept up to %d queues: %d of %d scripts kept", upTo, kept, s.Poll.Scripts)
		}
		p.Close()
	}
}
