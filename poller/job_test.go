package poller

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// jobFixture writes, in one queue, three pending jobs and one claimed job
// whose lease ran out, with the fields a producer adds (a worker, a last
// error with terminal escapes, a huge value) and, on a fourth job, more
// fields than the detail reads.
func jobFixture(t *testing.T, c valkey.Client, q string) (stuck, third, wide string) {
	t.Helper()
	for i := 0; i < 4; i++ {
		id, err := echomq.Enqueue(ctx, c, q, []byte(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			third = id // the third in pending once the first is claimed
		}
		if i == 2 {
			wide = id
		}
	}
	j, ok, err := echomq.Claim(ctx, c, q, time.Millisecond)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	stuck = j.ID
	row, _ := keyspace.JobKey(q, stuck)
	huge := strings.Repeat("x", 1<<20)
	if err := c.Do(ctx, c.B().Hset().Key(row).FieldValue().FieldValue("worker", "w-7").
		FieldValue("last_error", "timeout\x1b]52;c;SGk=\x07").FieldValue("trace", huge).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	wrow, _ := keyspace.JobKey(q, wide)
	cmd := c.B().Hset().Key(wrow).FieldValue()
	for i := 0; i < 200; i++ {
		cmd = cmd.FieldValue(fmt.Sprintf("f%03d", i), "v")
	}
	if err := c.Do(ctx, cmd.Build()).Error(); err != nil {
		t.Fatal(err)
	}
	vtest.UntilExpired(t, c, q, 1)
	return stuck, third, wide
}

func checkJobDetail(t *testing.T, c valkey.Client, q string) {
	stuck, third, wide := jobFixture(t, c, q)
	d, err := ReadJob(ctx, c, q, stuck, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Exists || d.State != "active" || d.Attempts != "1" || !d.InActive || d.InPending || d.PendingRank != -1 {
		t.Errorf("stuck job: %+v", d)
	}
	if d.ActiveScore <= 0 || d.ActiveScore > time.Now().UnixMilli() {
		t.Errorf("stuck job's deadline %d is not a past time in ms", d.ActiveScore)
	}
	got := map[string]model.Field{}
	for _, f := range d.Fields {
		got[f.Name] = f
	}
	if d.Others != 3 || len(d.Fields) != 3 || got["worker"].Value != "w-7" ||
		got["last_error"].Value != "timeout\x1b]52;c;SGk=\x07" {
		t.Errorf("fields: others %d, %+v", d.Others, d.Fields)
	}
	if tr := got["trace"]; tr.ValueLen != 1<<20 || len(tr.Value) != FieldBytes {
		t.Errorf("a 1 MiB field: whole %d, read %d bytes; want %d, %d", tr.ValueLen, len(tr.Value), 1<<20, FieldBytes)
	}
	p, err := ReadJob(ctx, c, q, third, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.PendingRank != 2 || !p.InPending || p.InActive || p.PendingScore <= 0 || p.Others != 0 {
		t.Errorf("third pending job: %+v", p)
	}
	w, err := ReadJob(ctx, c, q, wide, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w.Others != 200 || len(w.Fields) != MaxFields {
		t.Errorf("a row of 203 fields: others %d, read %d; want 200, %d", w.Others, len(w.Fields), MaxFields)
	}
	gone, err := ReadJob(ctx, c, q, echomq.NewJobID(), 0)
	if err != nil || gone.Exists || gone.InPending || gone.InActive || gone.PendingRank != -1 {
		t.Errorf("a job that is not there: %+v, %v", gone, err)
	}
}

// The detail read on a real cluster: the job's place in its sets and its
// other fields, bounded in the server.
func TestReadJobOnACluster(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	checkJobDetail(t, c, "orders")
}

// The same read on the demo's embedded server.
func TestReadJobOnTheEmbeddedServer(t *testing.T) {
	env, err := demo.Start(demo.EnvOptions{Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	checkJobDetail(t, env.Client, "orders")
}

// Find on a real cluster: a job's row is found by its id among thousands
// of other keys, a page per primary per step (bounded work per call); an
// id with no row walks every primary and ends with nothing; a malformed id
// is refused before any server is asked.
func TestFindJobOnACluster(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	var cmds valkey.Commands
	for i := 0; i < 6000; i++ {
		cmds = append(cmds, c.B().Set().Key(fmt.Sprintf("filler:%d", i)).Value("x").Build())
	}
	for _, r := range c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			t.Fatal(err)
		}
	}
	id, err := echomq.Enqueue(ctx, c, "needle-queue", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := pollAll(t, c, Options{})
	if _, err := p.StartFind(ctx, "JOB-not-an-id"); err == nil {
		t.Error("a malformed id was not refused")
	}
	run := func(id string) (model.FindProgress, int) {
		f, err := p.StartFind(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var pr model.FindProgress
		steps := 0
		for !pr.Done && steps < 1000 {
			pr = f.Step(ctx)
			steps++
		}
		return pr, steps
	}
	f, steps := run(id)
	if f.Queue != "needle-queue" || len(f.Failed) != 0 || f.Nodes != 3 || f.Total < 6000 {
		t.Errorf("found in %q, errors %v, %d nodes, %d keys", f.Queue, f.Failed, f.Nodes, f.Total)
	}
	t.Logf("found after %d steps, %d of %d keys walked", steps, f.Walked, f.Total)
	none, steps := run(echomq.NewJobID())
	if none.Queue != "" || !none.Done || none.Walked != none.Total || steps < 2 {
		t.Errorf("a missing id: queue %q, walked %d of %d in %d steps", none.Queue, none.Walked, none.Total, steps)
	}
}

// A cluster of one primary: the node never met another, so it does not
// know its own address and lists itself with none; the poller takes the
// host it asked, and the node is up (it was shown down, as ":port").
func TestOnePrimaryClusterIsUp(t *testing.T) {
	cl, c := vtest.Cluster(t, 1)
	if _, err := echomq.Enqueue(ctx, c, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Addrs: []string{cl.Nodes[0].Addr()}, Timeout: 2 * time.Second}
	pc, err := Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	_, s := pollAll(t, pc, Options{Target: cfg.Target()})
	if up, total := s.NodesUp(); up != 1 || total != 1 || s.Nodes[0].Addr != cl.Nodes[0].Addr() {
		t.Errorf("%d of %d up, node %q", up, total, s.Nodes[0].Addr)
	}
	if q := s.Queue("orders"); q == nil || q.Pending != 1 {
		t.Errorf("orders: %+v", q)
	}
}

func TestSettledTopology(t *testing.T) {
	ok := []model.Node{{Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 0, Hi: 5}}},
		{Role: model.RoleFailed, Health: "fail"}, {Role: model.RoleReplica, Health: "fail"}}
	if !settled(ok) {
		t.Error("a failed node owning nothing is settled")
	}
	mid := append(ok, model.Node{Role: model.RolePrimary, Health: "fail", Slots: []model.Range{{Lo: 6, Hi: 9}}})
	if settled(mid) {
		t.Error("a failed primary still owning slots is settled")
	}
}

// Scores of ±inf or past any time are no time: the snapshot marks them
// (ScoreOff), never an int64 of +inf (-9223372036854775808, "stuck for
// 106751d"), and a pending job at -inf gives the queue no age.
func TestInfiniteScores(t *testing.T) {
	_, c := vtest.Cluster(t, 0)
	ids := map[string]string{}
	for _, tc := range []struct {
		set, name string
		score     float64
	}{{"active", "forever", math.Inf(1)}, {"active", "never", math.Inf(-1)}, {"pending", "far", 1e300}, {"pending", "first", math.Inf(-1)}} {
		id := echomq.NewJobID()
		ids[tc.name] = id
		set, _ := keyspace.QueueKey("inf", tc.set)
		row, _ := keyspace.JobKey("inf", id)
		if err := c.Do(ctx, c.B().Zadd().Key(set).ScoreMember().ScoreMember(tc.score, id).Build()).Error(); err != nil {
			t.Fatal(err)
		}
		c.Do(ctx, c.B().Hset().Key(row).FieldValue().FieldValue("attempts", "1").Build())
	}
	_, s := pollAll(t, c, Options{}, "inf")
	q := s.Queue("inf")
	if q == nil || !q.Detail {
		t.Fatalf("no detail of inf: %+v", q)
	}
	if q.OldestPendingAgeMs != -1 {
		t.Errorf("a pending job at -inf gave the queue an age of %dms", q.OldestPendingAgeMs)
	}
	off := map[string]int8{}
	for _, j := range append(append([]model.Job{}, q.ActiveJobs()...), q.PendingJobs()...) {
		off[j.ID] = j.ScoreOff
		if j.ScoreOff != 0 && j.Score != 0 {
			t.Errorf("%s: score %d beside ScoreOff %d", j.ID, j.Score, j.ScoreOff)
		}
	}
	for name, want := range map[string]int8{"forever": 1, "never": -1, "far": 1, "first": -1} {
		if off[ids[name]] != want {
			t.Errorf("%s: ScoreOff %d, want %d", name, off[ids[name]], want)
		}
	}
	if q.Expired != 1 {
		t.Errorf("expired %d: the server counts the -inf deadline, not the +inf one", q.Expired)
	}
}
