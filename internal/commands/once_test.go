package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

func TestOnceJSONSchema(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		echomq.Enqueue(ctx, c, "orders", []byte("x"))
	}
	echomq.Claim(ctx, c, "orders", time.Millisecond)
	// a hostile key: discovery must report it without printing it raw
	c.Do(ctx, c.B().Zadd().Key("emq:{\x1b]52;c;aGk=\x07}:pending").ScoreMember().ScoreMember(1, "x").Build())
	vtest.UntilExpired(t, c, "orders", 1)

	var out, errb bytes.Buffer
	rc := Main([]string{"--once", "--json", "--addr", cl.Nodes[0].Addr()}, &out, &errb)
	if rc != 0 {
		t.Fatalf("rc = %d, stderr %s", rc, errb.String())
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\x07") {
		t.Fatal("raw escape bytes in the JSON output")
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	for _, k := range []string{"server_time_ms", "version", "nodes", "queues", "foreign_keys", "poll"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q field", k)
		}
	}
	nodes := doc["nodes"].([]any)
	if len(nodes) != 3 {
		t.Fatalf("%d nodes", len(nodes))
	}
	for _, n := range nodes {
		m := n.(map[string]any)
		for _, k := range []string{"addr", "id", "role", "slots", "queues", "pending", "active", "expired", "error"} {
			if _, ok := m[k]; !ok {
				t.Errorf("node lacks %q", k)
			}
		}
	}
	qs := doc["queues"].([]any)
	if len(qs) != 1 {
		t.Fatalf("queues = %v", qs)
	}
	q := qs[0].(map[string]any)
	for k, want := range map[string]float64{"slot": 105, "pending": 2, "active": 1, "scheduled": 0, "expired": 1} {
		if q[k] != want {
			t.Errorf("queue %s = %v, want %v", k, q[k], want)
		}
	}
	for _, k := range []string{"name", "node", "oldest_pending_age_ms", "error"} {
		if _, ok := q[k]; !ok {
			t.Errorf("queue lacks %q", k)
		}
	}
	poll := doc["poll"].(map[string]any)
	for _, k := range []string{"duration_ms", "scripts", "round_trips"} {
		if _, ok := poll[k]; !ok {
			t.Errorf("poll lacks %q", k)
		}
	}
	if fk := doc["foreign_keys"].([]any); len(fk) != 1 || !strings.Contains(fk[0].(map[string]any)["key"].(string), "\x1b]52") {
		t.Errorf("foreign_keys = %v, want the hostile key (escaped in JSON, intact when parsed)", fk)
	}

	out.Reset()
	if rc := Main([]string{"--once", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 0 {
		t.Fatalf("table rc = %d", rc)
	}
	if bytes.ContainsAny(out.Bytes(), "\x1b\x07") || !strings.Contains(out.String(), `\x1b]52`) {
		t.Errorf("table shows the hostile key raw or not at all:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "orders") {
		t.Errorf("table lacks orders:\n%s", out.String())
	}
}

func TestOnceExitStatus(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	cl.Kill(2)
	var out, errb bytes.Buffer
	rc := Main([]string{"--once", "--json", "--timeout", "300ms", "--addr", cl.Nodes[0].Addr()}, &out, &errb)
	if rc != 2 {
		t.Errorf("one node down: rc = %d, want 2; stderr %s", rc, errb.String())
	}
	if !json.Valid(out.Bytes()) {
		t.Errorf("what was read is not printed as JSON: %s", out.String())
	}
	if !strings.Contains(errb.String(), cl.Nodes[2].Addr()) {
		t.Errorf("stderr does not name the dead node: %s", errb.String())
	}
	errb.Reset()
	cl.Kill(0)
	cl.Kill(1)
	if rc := Main([]string{"--once", "--timeout", "300ms", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 1 {
		t.Errorf("nothing reachable: rc = %d, want 1", rc)
	}
	// with --once, 2 means "some node did not answer": bad flags are 1
	if rc := Main([]string{"--once", "--queues", "a}b"}, &out, &errb); rc != 1 {
		t.Errorf("bad --queues: rc = %d, want 1", rc)
	}
	errb.Reset()
	if rc := Main([]string{"--once", "--interval", "10ms", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "--interval") {
		t.Errorf("--interval 10ms: rc = %d, stderr %q; want 1 and the flag named", rc, errb.String())
	}
	if rc := Main([]string{"--once", "--url", "redis://u:secret@127.0.0.1:1"}, &out, &errb); rc != 1 || strings.Contains(errb.String(), "secret") {
		t.Errorf("password in --url: rc = %d, stderr %q", rc, errb.String())
	}
}

// In JSON a score that is no time is null with a note, never the int64 of
// +inf (-9223372036854775808).
func TestOnceJSONInfiniteScore(t *testing.T) {
	cl, c := vtest.Cluster(t, 0)
	id := echomq.NewJobID()
	set, _ := keyspace.QueueKey("inf", keyspace.TypeActive)
	row, _ := keyspace.JobKey("inf", id)
	c.Do(bg, c.B().Zadd().Key(set).ScoreMember().ScoreMember(math.Inf(1), id).Build())
	c.Do(bg, c.B().Hset().Key(row).FieldValue().FieldValue("attempts", "1").Build())
	var out, errb bytes.Buffer
	if rc := Main([]string{"--once", "--json", "--jobs", "5", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d %s", rc, errb.String())
	}
	if s := out.String(); !strings.Contains(s, `"score": null`) || !strings.Contains(s, `"score_note": "no deadline (+inf)"`) ||
		strings.Contains(s, "9223372036854775808") {
		t.Errorf("the +inf deadline in JSON:\n%s", s)
	}
}

// --once --json carries each primary's slot stats as totals (never a
// figure per slot): on Valkey 8 the keys, on Redis 7 why there are none.
func TestOnceJSONSlotStats(t *testing.T) {
	name, major, err := testcluster.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	cl, c := vtest.Cluster(t, 3)
	for i := 0; i < 5; i++ {
		echomq.Enqueue(bg, c, "orders", []byte("x"))
	}
	var out, errb bytes.Buffer
	if rc := Main([]string{"--once", "--json", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d %s", rc, errb.String())
	}
	var doc struct {
		Nodes []struct {
			Role string
			Load *struct {
				Mode string
				Why  string
				Keys int64
				CPU  *float64 `json:"cpu_usec_per_s"`
			} `json:"slot_stats"`
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var keys int64
	for _, n := range doc.Nodes {
		if n.Role != "primary" {
			continue
		}
		switch {
		case n.Load == nil:
			t.Fatalf("a primary without slot_stats:\n%s", out.String())
		case name == "valkey" && major >= 8 && (n.Load.Mode != "keys" || !strings.Contains(n.Load.Why, "cluster-slot-stats-enabled is off")):
			t.Errorf("Valkey without the stats on: %+v", *n.Load)
		case (name != "valkey" || major < 8) && (n.Load.Mode != "none" || !strings.Contains(n.Load.Why, "has no CLUSTER SLOT-STATS")):
			t.Errorf("%s %d: %+v", name, major, *n.Load)
		}
		if n.Load.CPU != nil {
			t.Errorf("a CPU rate from one read: %v", *n.Load.CPU)
		}
		keys += n.Load.Keys
	}
	if name == "valkey" && major >= 8 && keys != 6 { // the pending set and 5 job rows
		t.Errorf("%d keys in all by SLOT-STATS, want 6", keys)
	}
}
