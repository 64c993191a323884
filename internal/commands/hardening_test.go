package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// fakeServer is testcluster.FakeServer: a port that answers every command
// with reply.
func fakeServer(t *testing.T, reply string) string { return testcluster.FakeServer(t, reply) }

// The password refusal is not bypassed by an '@' in the query or the
// fragment, the password never reaches stderr, and a URL without a host is
// refused instead of meaning 127.0.0.1:6379.
func TestURLRefusals(t *testing.T) {
	cases := []struct {
		args []string
		rc   int
		want string
	}{
		{[]string{"--once", "--url", "redis://default:Pw@127.0.0.1:1/?x=@"}, exitError, "password"},
		{[]string{"--once", "--url", "redis://default:Pw@127.0.0.1:1#/@"}, exitError, "password"},
		{[]string{"--url", "redis://default:Pw@127.0.0.1:1/?x=@"}, exitUsage, "password"},
		{[]string{"slot", "--url", "redis://default:Pw@127.0.0.1:1/?x=@", "orders"}, exitUsage, "password"},
		{[]string{"drain", "--queue", "q", "--yes", "--url", "redis://default:Pw@127.0.0.1:1/?x=@"}, exitUsage, "password"},
		{[]string{"--once", "--url", "redis://"}, exitError, "names no host"},
		{[]string{"--once", "--url", "redis://h:notaport"}, exitError, `the port "notaport" is not a number`},
		{[]string{"--once", "--addr", "127.0.0.1:notaport"}, exitError, `the port "notaport"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		rc := Main(c.args, &out, &errb)
		if rc != c.rc || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q: rc %d, stderr %q; want %d and %q", c.args, rc, errb.String(), c.rc, c.want)
		}
		if strings.Contains(errb.String()+out.String(), "Pw") {
			t.Errorf("%q: the password was printed", c.args)
		}
	}
}

// A port that answers, but not in RESP, is named as such in plain words.
func TestNotAValkeyPort(t *testing.T) {
	addr := fakeServer(t, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
	var out, errb bytes.Buffer
	rc := Main([]string{"--once", "--timeout", "1s", "--addr", addr}, &out, &errb)
	if rc != exitError || !strings.Contains(errb.String(), "not as Valkey or Redis") {
		t.Errorf("rc %d, stderr %q", rc, errb.String())
	}
	if strings.Contains(errb.String(), "unknown message type") {
		t.Errorf("client jargon on stderr: %q", errb.String())
	}
}

// A server whose error text is a terminal attack (title, OSC 52 clipboard
// write, screen clear, 8-bit CSI) reaches stderr escaped, in every command.
func TestHostileErrorText(t *testing.T) {
	addr := fakeServer(t, "-ERR \x1b]0;TITLE\x07\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u202e\r\n")
	for _, args := range [][]string{
		{"slot", "--timeout", "1s", "--addr", addr, "orders"},
		{"--once", "--timeout", "1s", "--addr", addr},
		{"--once", "--json", "--timeout", "1s", "--addr", addr},
		{"drain", "--timeout", "1s", "--addr", addr, "--queue", "q", "--yes", "--audit-log", filepath.Join(t.TempDir(), "a.log")},
	} {
		var out, errb bytes.Buffer
		rc := Main(args, &out, &errb)
		if rc == exitOK {
			t.Errorf("%q: rc 0 against a server that refuses everything", args)
		}
		if s := out.String() + errb.String(); !strings.Contains(s, `\x1b]0;TITLE`) {
			t.Errorf("%q: the server's error is not shown: %q", args, s)
		}
		if s := out.String() + errb.String(); strings.ContainsAny(s, "\x1b\x07\u009b\u202e") {
			t.Errorf("%q: raw control text printed: %q", args, s)
		}
	}
}

// Column widths count display cells: CJK and emoji names keep the columns
// aligned.
func TestTableCountsCells(t *testing.T) {
	tb := table{left: map[int]bool{0: true}}
	tb.row("QUEUE", "PENDING")
	tb.row("注文キュー", "1")
	tb.row("orders🚀", "22")
	tb.row("plain", "333")
	var b bytes.Buffer
	tb.write(&b)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := ansi.StringWidth(lines[0])
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != want {
			t.Errorf("%q is %d cells wide, the header %d", l, w, want)
		}
	}
	if !strings.HasSuffix(lines[1], "    1  ") {
		t.Errorf("PENDING not right-aligned: %q", lines[1])
	}
}

// Keys in EchoMQ's namespace that break its grammar are listed as foreign,
// with the reason, on every node: a brace never closed, and, named as the
// mistake it is, a producer that forgot the hashtag. A --queues name with no
// keys is marked as such.
func TestForeignKeysAndUnknownPinned(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	ctx := context.Background()
	echomq.Enqueue(ctx, c, "orders", []byte("x"))
	bad := []string{"emq:{half:pending", "emq:orders:pending", "emq:orders:active", "emq:billing:pending"}
	for _, k := range bad {
		if err := c.Do(ctx, c.B().Zadd().Key(k).ScoreMember().ScoreMember(1, "x").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if rc := Main([]string{"--once", "--json", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	var doc struct {
		Queues []struct {
			Name  string `json:"name"`
			Error string `json:"error"`
		} `json:"queues"`
		Foreign []struct{ Key, Reason string } `json:"foreign_keys"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, f := range doc.Foreign {
		reasons[f.Key] = f.Reason
	}
	for _, k := range bad {
		if _, ok := reasons[k]; !ok {
			t.Errorf("%s not listed as foreign (got %v)", k, reasons)
		}
	}
	if r := reasons["emq:orders:pending"]; !strings.Contains(r, "no hashtag") || !strings.Contains(r, "CROSSSLOT") {
		t.Errorf("the missing hashtag is not named: %q", r)
	}
	if len(doc.Queues) != 1 || doc.Queues[0].Name != "orders" {
		t.Errorf("queues %+v, want orders alone", doc.Queues)
	}

	out.Reset()
	rc := Main([]string{"--once", "--json", "--queues", "orders,nosuch", "--addr", cl.Nodes[0].Addr()}, &out, &errb)
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || rc != 0 {
		t.Fatalf("rc %d, %v", rc, err)
	}
	for _, q := range doc.Queues {
		switch {
		case q.Name == "nosuch" && !strings.Contains(q.Error, `no queue named "nosuch" on `+cl.Nodes[0].Addr()+" (it has no keys)"):
			t.Errorf("nosuch: error %q", q.Error)
		case q.Name == "orders" && q.Error != "":
			t.Errorf("orders: error %q", q.Error)
		}
	}
}

// --once gives counts, ages and errors; the job lists only with --jobs N,
// at most N of each.
func TestOnceJobsFlag(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		echomq.Enqueue(ctx, c, "orders", []byte("x"))
	}
	echomq.Claim(ctx, c, "orders", time.Minute)
	type doc struct {
		Queues []map[string]json.RawMessage `json:"queues"`
	}
	run := func(args ...string) doc {
		t.Helper()
		var out, errb bytes.Buffer
		if rc := Main(append([]string{"--once", "--json", "--addr", cl.Nodes[0].Addr()}, args...), &out, &errb); rc != 0 {
			t.Fatalf("%q: rc %d %s", args, rc, errb.String())
		}
		var d doc
		if err := json.Unmarshal(out.Bytes(), &d); err != nil || len(d.Queues) != 1 {
			t.Fatalf("%q: %v %s", args, err, out.String())
		}
		return d
	}
	d := run()
	if _, ok := d.Queues[0]["pending_jobs"]; ok {
		t.Error("pending_jobs without --jobs")
	}
	if _, ok := d.Queues[0]["active_jobs"]; ok {
		t.Error("active_jobs without --jobs")
	}
	d = run("--jobs", "2")
	var pending, active []json.RawMessage
	json.Unmarshal(d.Queues[0]["pending_jobs"], &pending)
	json.Unmarshal(d.Queues[0]["active_jobs"], &active)
	if len(pending) != 2 || len(active) != 1 {
		t.Errorf("--jobs 2: %d pending, %d active jobs listed; want 2 and 1", len(pending), len(active))
	}
	var out, errb bytes.Buffer
	if rc := Main([]string{"--jobs", "2", "--addr", cl.Nodes[0].Addr()}, &out, &errb); rc != exitUsage || !strings.Contains(errb.String(), "--jobs") {
		t.Errorf("--jobs without --once: rc %d %q", rc, errb.String())
	}
}

// --once with one hung primary (SIGSTOP: its sockets open, nothing answers)
// gives exit 2 and the other nodes' data, in the table and in JSON. (The
// timeout is the default: under load a shorter one could fail a healthy node.)
func TestOnceWithHungPrimary(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, NodeTimeout: 30 * time.Second})
	c := vtest.Client(t, cl)
	ctx := context.Background()
	var names []string
	for i := 0; i < 30; i++ {
		q := "q-" + itoa(i)
		names = append(names, q)
		if _, err := echomq.Enqueue(ctx, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.Pause(1); err != nil {
		t.Fatal(err)
	}
	defer cl.Resume(1)
	hung := cl.Nodes[1].Addr()
	for _, asJSON := range []bool{false, true} {
		args := []string{"--once", "--timeout", "2s", "--addr", cl.Nodes[0].Addr() + "," + hung}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errb bytes.Buffer
		rc := Main(args, &out, &errb)
		if rc != exitPartial {
			t.Fatalf("json %v: rc %d, want 2; stderr %q", asJSON, rc, errb.String())
		}
		if !strings.Contains(errb.String(), "node "+hung) {
			t.Errorf("json %v: stderr does not name the hung node: %q", asJSON, errb.String())
		}
		// every queue of the answering nodes is printed, with its count
		seen := 0
		for _, q := range names {
			slot := keyspace.QueueSlot(q)
			owner, _ := cl.Owner(int(slot))
			if owner != 1 && strings.Contains(out.String(), q) {
				seen++
			}
		}
		want := 0
		for _, q := range names {
			if o, _ := cl.Owner(int(keyspace.QueueSlot(q))); o != 1 {
				want++
			}
		}
		if seen != want || want == 0 {
			t.Errorf("json %v: %d of the %d queues on answering nodes printed:\n%s", asJSON, seen, want, out.String())
		}
	}
}
