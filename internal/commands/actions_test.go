package commands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

var bg = context.Background()

func auditLines(t *testing.T, path string) []auditLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

// TestOperatorRequeuesWhileWorkersRun: 5,000 requeues of jobs that 8
// workers keep claiming and acking, and one sure fence beside them. Every
// job is acked exactly once, and every refusal was a true fence or a job
// no longer active.
func TestOperatorRequeuesWhileWorkersRun(t *testing.T) {
	_, c := vtest.Cluster(t, 3)

	var mu sync.Mutex
	acks := map[string]int{}
	w := demo.New(c, demo.Config{Seed: 3, Synthetic: 0, Rate: 1500, Workers: 8,
		Lease: time.Minute, WorkMax: 3 * time.Millisecond,
		OnAck: func(q, id string) { mu.Lock(); acks[q+"/"+id]++; mu.Unlock() }})
	path := filepath.Join(t.TempDir(), "audit.log")
	a, err := newActions(c, poller.Config{Addrs: []string{"test"}}, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(bg)
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()

	r := rand.New(rand.NewPCG(1, 1))
	var requeued, fenced, notActive int
	type seen struct {
		q, id string
		att   int64
	}
	var stale []seen // what an operator looking at an old screen would act on
	for tries := 0; tries < 5000; {
		var s seen
		if len(stale) > 0 && r.IntN(4) == 0 {
			s = stale[r.IntN(len(stale))]
		} else {
			q := demo.Named[r.IntN(len(demo.Named))]
			k, _ := keyspace.KeysOf(q)
			ids, _ := c.Do(bg, c.B().Zrange().Key(k.Active).Min("0").Max("0").Build()).AsStrSlice()
			if len(ids) == 0 {
				continue
			}
			row, _ := keyspace.JobKey(q, ids[0])
			att, err := c.Do(bg, c.B().Hget().Key(row).Field("attempts").Build()).AsInt64()
			if err != nil {
				continue // acked between the two reads
			}
			s = seen{q, ids[0], att}
			stale = append(stale, s)
		}
		tries++
		var refused *model.Refused
		switch err := a.Requeue(bg, s.q, s.id, s.att); {
		case err == nil:
			requeued++
		case errors.As(err, &refused) && strings.Contains(refused.Reason, "claimed again since"):
			// truly fenced: the job's attempts moved past what was seen
			var now, saw int64
			fmt.Sscanf(refused.Reason, "its attempts are %d, not %d", &now, &saw)
			if saw != s.att || now <= saw {
				t.Errorf("fenced with attempts now %d, seen %d (token %d)", now, saw, s.att)
			}
			fenced++
		case errors.As(err, &refused) && strings.Contains(refused.Reason, "no longer active"):
			notActive++
		default:
			t.Fatalf("requeue: %v", err)
		}
	}
	// A fence for certain, while the workers run on: the stale screens
	// above meet a job claimed again only when the timing allows (under
	// load a run met none: a job claimed again is acked within 3 ms). A
	// job of a queue no worker serves, claimed, requeued with its token,
	// claimed again: the old token is refused as claimed again since.
	const fq = "operator-fence"
	if _, err := echomq.Enqueue(bg, c, fq, []byte("x")); err != nil {
		t.Fatal(err)
	}
	first, ok, err := echomq.Claim(bg, c, fq, time.Minute)
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := a.Requeue(bg, fq, first.ID, first.Attempts); err != nil {
		t.Fatalf("requeue with the job's own attempts: %v", err)
	}
	requeued++
	again, ok, err := echomq.Claim(bg, c, fq, time.Minute)
	if err != nil || !ok || again.ID != first.ID || again.Attempts <= first.Attempts {
		t.Fatalf("claimed again: %+v %v %v, first %+v", again, ok, err, first)
	}
	var refused *model.Refused
	if err := a.Requeue(bg, fq, first.ID, first.Attempts); !errors.As(err, &refused) || !strings.Contains(refused.Reason, fmt.Sprintf("its attempts are %d, not %d", again.Attempts, first.Attempts)) {
		t.Fatalf("requeue with the attempts seen before the job was claimed again: %v", err)
	}
	fenced++
	if err := echomq.Ack(bg, c, fq, again.ID, again.Attempts); err != nil {
		t.Fatal(err)
	}
	w.StopProducing()
	<-w.Produced() // no enqueue in flight: Enqueued is final
	vtest.Within(2*time.Minute, func() bool { st := w.Stats(); return st.Acked >= st.Enqueued })
	jobs := int(w.Stats().Enqueued)
	cancel()
	<-done
	t.Logf("requeued %d, fenced %d, not active %d; workload %+v", requeued, fenced, notActive, w.Stats())
	if requeued <= 1 || notActive == 0 {
		t.Error("the stale screens did not meet both applied and not-active requeues")
	}
	if len(acks) != jobs {
		t.Errorf("%d jobs acked, want %d", len(acks), jobs)
	}
	for k, n := range acks {
		if n != 1 {
			t.Errorf("%s acked %d times", k, n)
		}
	}
	lines := auditLines(t, path)
	counts := map[string]int{}
	for _, l := range lines {
		counts[l.Outcome]++
		if l.Action != "requeue" || l.Fence == nil || l.Job == "" {
			t.Errorf("audit line %+v", l)
		}
	}
	if counts["done"] != requeued || counts["fenced"] != fenced || counts["not-active"] != notActive || len(lines) != requeued+fenced+notActive {
		t.Errorf("audit outcomes %v, want done %d fenced %d not-active %d", counts, requeued, fenced, notActive)
	}
	for _, nc := range c.Nodes() {
		if n, _ := nc.Do(bg, nc.B().Dbsize().Build()).AsInt64(); n != 0 {
			t.Errorf("%d keys left on a node", n)
		}
	}
}

// TestDrainWhileProducing: drained + remaining = enqueued; active jobs and
// their rows are untouched.
func TestDrainWhileProducing(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	q := "orders"
	var active []echomq.Job
	for i := 0; i < 20; i++ {
		echomq.Enqueue(bg, c, q, []byte("a"))
		j, _, err := echomq.Claim(bg, c, q, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		active = append(active, j)
	}
	var enqueued atomic.Int64
	stop := make(chan struct{})
	prodDone := make(chan struct{})
	go func() {
		defer close(prodDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := echomq.Enqueue(bg, c, q, []byte("p")); err == nil {
				enqueued.Add(1)
			}
		}
	}()
	vtest.Until(t, time.Minute, "3000 enqueued", func() bool { return enqueued.Load() >= 3000 })
	var out, errb bytes.Buffer
	rc := Main([]string{"drain", "--addr", cl.Nodes[0].Addr(), "--queue", q, "--yes", "--audit-log", filepath.Join(t.TempDir(), "a.log")}, &out, &errb)
	close(stop)
	<-prodDone
	if rc != 0 {
		t.Fatalf("drain rc %d: %s", rc, errb.String())
	}
	var drained int64
	fmt.Sscanf(out.String(), "drained %d", &drained)
	k, _ := keyspace.KeysOf(q)
	left, _ := c.Do(bg, c.B().Zcard().Key(k.Pending).Build()).AsInt64()
	if drained+left != enqueued.Load() || drained == 0 {
		t.Errorf("drained %d + left %d != enqueued %d", drained, left, enqueued.Load())
	}
	for _, j := range active {
		row, _ := keyspace.JobKey(q, j.ID)
		if n, _ := c.Do(bg, c.B().Exists().Key(row).Build()).AsInt64(); n != 1 {
			t.Errorf("active job %s lost its row", j.ID)
		}
		if _, err := c.Do(bg, c.B().Zscore().Key(k.Active).Member(j.ID).Build()).AsFloat64(); err != nil {
			t.Errorf("active job %s left the active set: %v", j.ID, err)
		}
	}
}

func TestRequeueCommand(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	q := "fills"
	for i := 0; i < 3; i++ {
		echomq.Enqueue(bg, c, q, nil)
	}
	short, _, _ := echomq.Claim(bg, c, q, time.Millisecond)
	long, _, _ := echomq.Claim(bg, c, q, time.Hour)
	vtest.UntilExpired(t, c, q, 1)
	addr := cl.Nodes[0].Addr()
	audit := filepath.Join(t.TempDir(), "a.log")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		rc := Main(append(args, "--addr", addr, "--audit-log", audit), &out, &errb)
		return rc, out.String(), errb.String()
	}
	if rc, out, _ := run("requeue", "--queue", q, "--expired"); rc != 0 || !strings.Contains(out, "requeued 1 expired") {
		t.Errorf("--expired: rc %d %q", rc, out)
	}
	// the operator gave a wrong value: say what is known, not that a worker claimed it
	if rc, _, errs := run("requeue", "--queue", q, "--job", long.ID, "--attempts", "7"); rc != 3 ||
		!strings.Contains(errs, "its attempts are 1, not 7: claimed again since, or the value given is not the one shown") {
		t.Errorf("fenced: rc %d %q", rc, errs)
	}
	// an attempts field that is no number, or none at all: one reason, the
	// true one, on stderr and in the audit line alike
	row, _ := keyspace.JobKey(q, long.ID)
	for _, tc := range []struct {
		set  func() error
		want string
	}{
		{func() error {
			return c.Do(bg, c.B().Hset().Key(row).FieldValue().FieldValue("attempts", "three").Build()).Error()
		},
			`its attempts field holds "three", not a number, so no token matches it (3 given)`},
		{func() error { return c.Do(bg, c.B().Hdel().Key(row).Field("attempts").Build()).Error() },
			"the job row has no attempts field, so no token matches it (3 given)"},
	} {
		if err := tc.set(); err != nil {
			t.Fatal(err)
		}
		rc, _, errs := run("requeue", "--queue", q, "--job", long.ID, "--attempts", "3")
		lines := auditLines(t, audit)
		if last := lines[len(lines)-1]; rc != 3 || !strings.Contains(errs, tc.want) || !strings.Contains(last.Error, tc.want) {
			t.Errorf("rc %d, stderr %q, audit %q; want both to say %q", rc, errs, last.Error, tc.want)
		}
	}
	c.Do(bg, c.B().Hset().Key(row).FieldValue().FieldValue("attempts", "1").Build())
	// a queue with no keys is refused by name, never "0 done"
	for _, args := range [][]string{{"requeue", "--queue", "nosuchqueue", "--expired"}, {"drain", "--queue", "nosuchqueue", "--yes"},
		{"requeue", "--queue", "nosuchqueue", "--job", long.ID, "--attempts", "1"}} {
		if rc, out, errs := run(args...); rc != 3 || !strings.Contains(errs, `no queue named "nosuchqueue" on `+addr+" (it has no keys)") || out != "" {
			t.Errorf("%v: rc %d, stdout %q, stderr %q", args, rc, out, errs)
		}
	}
	if rc, _, errs := run("requeue", "--queue", q, "--job", short.ID, "--attempts", "1"); rc != 3 || !strings.Contains(errs, "no longer active") {
		t.Errorf("not active: rc %d %q", rc, errs)
	}
	if rc, out, _ := run("requeue", "--queue", q, "--job", long.ID, "--attempts", "1"); rc != 0 || !strings.Contains(out, "requeued") {
		t.Errorf("requeue: rc %d %q", rc, out)
	}
	if rc, _, errs := run("requeue", "--queue", q, "--job", long.ID, "--attempts", "1", "--read-only"); rc != 3 || !strings.Contains(errs, "read-only") {
		t.Errorf("read-only: rc %d %q", rc, errs)
	}
	for _, bad := range [][]string{{"requeue", "--queue", "a}b", "--expired"}, {"requeue", "--queue", q, "--job", "x}:evil", "--attempts", "1"},
		{"requeue", "--queue", q, "--job", long.ID}, {"drain", "--queue", q}, {"drain", "--queue", q, "--yes", "extra"}} {
		if rc, _, _ := run(bad...); rc != 2 {
			t.Errorf("%v: rc %d, want 2", bad, rc)
		}
	}
	lines := auditLines(t, audit)
	var outcomes []string
	for _, l := range lines {
		outcomes = append(outcomes, l.Outcome)
	}
	if strings.Join(outcomes, ",") != "done,fenced,fenced,fenced,not-active,done,read-only" {
		t.Errorf("audit outcomes %v", outcomes)
	}
	st, _ := os.Stat(audit)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v", st.Mode().Perm())
	}
}

// commandCalls sums INFO commandstats calls per command over the nodes.
func commandCalls(t *testing.T, cl *testcluster.Cluster) map[string]int64 {
	out := map[string]int64{}
	for _, n := range cl.Nodes {
		s, err := testcluster.Info(n.Addr(), "commandstats")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(s, "\n") {
			name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || !strings.HasPrefix(name, "cmdstat_") {
				continue
			}
			var calls int64
			fmt.Sscanf(rest, "calls=%d", &calls)
			out[strings.TrimPrefix(name, "cmdstat_")] += calls
		}
	}
	return out
}

// readerACL is the minimal read-only user of the README.
var readerACL = []string{"reader", "on", ">reader-secret", "~*", "resetchannels", "-@all",
	"+@read", "+@connection", "+cluster|shards", "+cluster|slots", "+cluster|nodes", "+cluster|info",
	"+info", "+time", "+script|load", "+evalsha_ro", "+eval_ro", "+client|tracking", "+client|id"}

func TestReadOnlyUser(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	echomq.Enqueue(bg, c, "orders", []byte("x"))
	j, _, _ := echomq.Claim(bg, c, "orders", time.Hour)
	for _, n := range cl.Nodes {
		conn, _ := testcluster.Dial(n.Addr())
		args := append([]string{"ACL", "SETUSER"}, readerACL...)
		if _, err := conn.Do(args...); err != nil {
			t.Fatalf("ACL SETUSER: %v", err)
		}
		conn.Close()
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("reader-secret\n"), 0o600)
	audit := filepath.Join(t.TempDir(), "a.log")
	base := []string{"--addr", cl.Nodes[0].Addr(), "--user", "reader", "--password-file", pw, "--audit-log", audit}
	before := commandCalls(t, cl)
	var out, errb bytes.Buffer
	if rc := Main(append([]string{"--once", "--json"}, base...), &out, &errb); rc != 0 {
		t.Fatalf("--once as reader: rc %d %s", rc, errb.String())
	}
	if !strings.Contains(out.String(), `"name": "orders"`) {
		t.Errorf("the reader sees no queue: %s", out.String())
	}
	errb.Reset()
	if rc := Main(append([]string{"requeue", "--queue", "orders", "--job", j.ID, "--attempts", "1", "--read-only"}, base...), &out, &errb); rc != 3 {
		t.Errorf("read-only requeue: rc %d %s", rc, errb.String())
	}
	after := commandCalls(t, cl)
	for _, cmd := range []string{"evalsha", "eval", "zadd", "hset", "del", "zrem", "set", "hincrby"} {
		if after[cmd] != before[cmd] {
			t.Errorf("%s was sent: %d → %d", cmd, before[cmd], after[cmd])
		}
	}
	// without --read-only the server itself refuses: NOPERM, exit 3
	errb.Reset()
	if rc := Main(append([]string{"requeue", "--queue", "orders", "--job", j.ID, "--attempts", "1"}, base...), &out, &errb); rc != 3 || !strings.Contains(errb.String(), "NOPERM") {
		t.Errorf("requeue as reader: rc %d %s", rc, errb.String())
	}
	if n := strings.Count(errb.String(), "refuses writes for this user"); n != 1 {
		t.Errorf("the refusal's words %d times: %s", n, errb.String())
	}
	if strings.Contains(errb.String()+out.String(), "reader-secret") {
		t.Error("the password leaked into the output")
	}
	b, _ := os.ReadFile(audit)
	if bytes.Contains(b, []byte("reader-secret")) {
		t.Error("the password leaked into the audit log")
	}
	// a wrong password: the error says so and does not repeat it
	os.WriteFile(pw, []byte("wrong-secret\n"), 0o600)
	out.Reset()
	errb.Reset()
	if rc := Main(append([]string{"--once"}, base...), &out, &errb); rc != 1 || strings.Contains(errb.String(), "wrong-secret") ||
		!strings.Contains(strings.ToUpper(errb.String()), "WRONGPASS") {
		t.Errorf("wrong password: rc %d %q", rc, errb.String())
	}
	// a user who may not run the snapshot gets an error naming what is missing
	for _, n := range cl.Nodes {
		conn, _ := testcluster.Dial(n.Addr())
		conn.Do("ACL", "SETUSER", "blind", "on", ">blind-secret", "~*", "-@all", "+@read", "+@connection",
			"+cluster|shards", "+cluster|nodes", "+info", "+time")
		conn.Close()
	}
	os.WriteFile(pw, []byte("blind-secret\n"), 0o600)
	out.Reset()
	errb.Reset()
	rc := Main([]string{"--once", "--addr", cl.Nodes[0].Addr(), "--user", "blind", "--password-file", pw}, &out, &errb)
	if all := out.String() + errb.String(); rc == 0 || !strings.Contains(all, "no permissions to run the '") {
		t.Errorf("the missing permission is not named: rc %d\n%s", rc, all)
	}
}
