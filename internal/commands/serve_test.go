package commands

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// sshKey is a fresh client key and its authorized_keys line.
func sshKey(t testing.TB, comment string) (gossh.Signer, string) { return vtest.SSHKey(t, "", comment) }

// term is a real SSH client session with a pty: what it received, and
// its keyboard.
type term struct {
	sess     *gossh.Session
	in       io.Writer
	mu       sync.Mutex
	out      bytes.Buffer
	answered bool
}

// Write takes the server's output; like a terminal, it answers the
// background-colour and device-attributes queries (the session's renderer
// asks them before the first frame).
func (c *term) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.answered && bytes.Contains(p, []byte("\x1b[c")) {
		c.answered = true
		io.WriteString(c.in, "\x1b]11;rgb:1c1c/1c1c/1c1c\x1b\\\x1b[?62;22c")
	}
	return c.out.Write(p)
}

func (c *term) screen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return ansi.Strip(c.out.String())
}

func (c *term) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Len()
}

// waitFor waits until everything received holds each of ss.
func (c *term) waitFor(t testing.TB, ss ...string) {
	t.Helper()
	var s, missing string
	if vtest.Within(20*time.Second, func() bool {
		s, missing = c.screen(), ""
		for _, w := range ss {
			if !strings.Contains(s, w) {
				missing = w
			}
		}
		return missing == ""
	}) {
		return
	}
	c.mu.Lock()
	raw := c.out.String()
	c.mu.Unlock()
	t.Fatalf("the session never showed %q; it shows (%d bytes, %q):\n%s", missing, c.received(), tail(raw, 200), tail(s, 4000))
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// dialTerm connects with key and opens a 120×40 pty and a shell; with read
// false nothing reads its output (a client that stopped reading).
func dialTerm(t testing.TB, addr string, key gossh.Signer, read bool) (*term, error) {
	t.Helper()
	conn, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "ops", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	sess, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	c := &term{sess: sess}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if c.in, err = sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := sess.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if read { // a terminal shows both streams
		go io.Copy(c, out)
		go io.Copy(c, errOut)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return c, nil
}

// keys types ks in order; the program takes them in order, so a test
// waits for what they show (waitFor), never for a while between them.
func (c *term) keys(t testing.TB, ks ...string) {
	t.Helper()
	for _, k := range ks {
		if _, err := io.WriteString(c.in, k); err != nil {
			t.Fatal(err)
		}
	}
}

// writeScripts sums, over the nodes, the calls of the write scripts (the
// read-only ones are EVALSHA_RO/EVAL_RO).
func writeScripts(t *testing.T, cl *testcluster.Cluster) int64 {
	t.Helper()
	var n int64
	for _, node := range cl.Nodes {
		s, err := testcluster.Info(node.Addr(), "commandstats")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") {
				var calls int64
				rest := line[strings.Index(line, "calls=")+len("calls="):]
				for _, r := range rest {
					if r < '0' || r > '9' {
						break
					}
					calls = calls*10 + int64(r-'0')
				}
				n += calls
			}
		}
	}
	return n
}

// emqtop serve on a real cluster, with real SSH clients: a reader sees the
// dashboard and cannot act (the cluster sees no write), an operator
// requeues a stuck job through the confirmation and the audit line names
// the key, a key not listed is refused, a client that stops reading does
// not slow the others, the metrics count the sessions, and SIGTERM ends
// every session with a message.
func TestServeOverSSH(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	for i := 0; i < 3; i++ {
		if _, err := echomq.Enqueue(bg, c, "orders", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	stuck, _, err := echomq.Claim(bg, c, "orders", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	reader, readerLine := sshKey(t, "alice@laptop")
	operator, operatorLine := sshKey(t, "bob@oncall")
	stranger, _ := sshKey(t, "mallory")
	os.WriteFile(filepath.Join(dir, "readers"), []byte("# readers\n"+readerLine), 0o600)
	os.WriteFile(filepath.Join(dir, "operators"), []byte(operatorLine), 0o600)
	audit := filepath.Join(dir, "audit.log")
	f := newServeFlags()
	f.root.conn.addr, f.root.conn.timeout = cl.Nodes[0].Addr(), 2*time.Second
	f.root.interval = 250 * time.Millisecond
	f.root.auditLog = audit
	f.ssh, f.metrics = "127.0.0.1:0", "127.0.0.1:0"
	f.readers, f.operators = filepath.Join(dir, "readers"), filepath.Join(dir, "operators")
	f.hostKey = filepath.Join(dir, "state", "host_key")
	f.idle, f.maxSessions = time.Hour, 8
	ctx, stop := context.WithCancel(bg)
	defer stop()
	sv := startServe(t, ctx, f)
	addrs, done := sv.addrs, sv.done
	if st, err := os.Stat(f.hostKey); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v %v", st.Mode(), err)
	}

	if _, err := dialTerm(t, addrs.ssh, stranger, true); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Errorf("a key not listed: %v", err)
	}
	before := writeScripts(t, cl)
	r, err := dialTerm(t, addrs.ssh, reader, true)
	if err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "READ-ONLY", "orders", "1 session on one poller: self")
	r.keys(t, "\x1b[Z", "r", "R")
	r.waitFor(t, "you are a reader")
	if after := writeScripts(t, cl); after != before {
		t.Errorf("a reader's session wrote: %d write scripts before, %d after", before, after)
	}

	slow, err := dialTerm(t, addrs.ssh, reader, false) // never reads a byte
	if err != nil {
		t.Fatal(err)
	}
	_ = slow
	o, err := dialTerm(t, addrs.ssh, operator, true)
	if err != nil {
		t.Fatal(err)
	}
	o.waitFor(t, "orders", stuck.ID[:12])
	o.keys(t, "\x1b[Z", "r")
	o.waitFor(t, "Requeue this job?")
	o.keys(t, "y")
	o.waitFor(t, "requeued "+stuck.ID)
	k, _ := keyspace.KeysOf("orders")
	if n, _ := c.Do(bg, c.B().Zcard().Key(k.Active).Build()).AsInt64(); n != 0 {
		t.Errorf("%d active after the operator's requeue", n)
	}
	line, _ := os.ReadFile(audit)
	for _, want := range []string{`"action":"requeue"`, `"outcome":"done"`, gossh.FingerprintSHA256(operator.PublicKey()),
		`"key_comment":"bob@oncall"`, `"client":"127.0.0.1:`} {
		if !bytes.Contains(line, []byte(want)) {
			t.Errorf("the audit line lacks %s: %s", want, line)
		}
	}
	// the slow client holds nobody up: the reader keeps getting frames
	n0 := r.received()
	if !vtest.Within(20*time.Second, func() bool { return r.received() > n0 }) {
		t.Error("the reader got nothing for 20s while a client did not read")
	}
	resp, err := http.Get("http://" + addrs.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// the requeue is in the metrics once the hub has polled after it
	if !vtest.Within(30*time.Second, func() bool {
		if bytes.Contains(m, []byte("emqtop_ssh_sessions 3")) && bytes.Contains(m, []byte(`emqtop_queue_jobs{queue="orders",state="pending"} 3`)) {
			return true
		}
		resp, err := http.Get("http://" + addrs.metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return false
	}) {
		t.Errorf("metrics:\n%s", m)
	}
	if err := r.sess.WindowChange(24, 80); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "Pending │") // the compact layout of 80×24: the job panes as tabs

	stop() // as SIGTERM does; the second it may take is bounded in serveUntil, not timed here
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve ended %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not end after SIGTERM")
	}
	r.waitFor(t, "emqtop serve is shutting down")
}

// syncBuffer is a buffer the server's goroutines may write while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The cap turns the session past it away with a message; the idle
// timeout ends a session with none, saying why.
// running is a serve started by startServe: where it listens, its exit
// code once it ends, what it printed.
type running struct {
	addrs     served
	done      chan int
	out, errb *syncBuffer
}

// startServe runs serveUntil until ctx ends and waits for it to listen; a
// serve that ends first fails the test with what it said.
func startServe(t *testing.T, ctx context.Context, f serveFlags) running {
	t.Helper()
	r := running{done: make(chan int, 1), out: &syncBuffer{}, errb: &syncBuffer{}}
	up := make(chan served, 1)
	go func() { r.done <- serveUntil(ctx, f, r.out, r.errb, func(s served) { up <- s }) }()
	select {
	case r.addrs = <-up:
	case code := <-r.done:
		t.Fatalf("serve exited %d: %s", code, r.errb.String())
	}
	return r
}

func TestServeCapAndIdle(t *testing.T) {
	cl, _ := vtest.Cluster(t, 1)
	dir := t.TempDir()
	key, line := sshKey(t, "carol")
	os.WriteFile(filepath.Join(dir, "readers"), []byte(line), 0o600)
	f := newServeFlags()
	f.root.conn.addr, f.root.conn.timeout = cl.Nodes[0].Addr(), 2*time.Second
	f.root.interval = time.Second
	f.ssh, f.readers, f.hostKey = "127.0.0.1:0", filepath.Join(dir, "readers"), filepath.Join(dir, "host_key")
	f.idle, f.maxSessions = 3*time.Second, 1
	ctx, stop := context.WithCancel(bg)
	defer stop()
	sv := startServe(t, ctx, f)
	addrs := sv.addrs
	first, err := dialTerm(t, addrs.ssh, key, true)
	if err != nil {
		t.Fatal(err)
	}
	first.waitFor(t, "READ-ONLY")
	// the first stays busy (a key resets its idle time) until the second
	// has been turned away, however slow the machine
	busy := make(chan struct{})
	go func() {
		for {
			select {
			case <-busy:
				return
			case <-time.After(300 * time.Millisecond):
				io.WriteString(first.in, "x")
			}
		}
	}()
	second, err := dialTerm(t, addrs.ssh, key, true)
	if err != nil {
		t.Fatal(err)
	}
	second.waitFor(t, "1 sessions already, the most it serves (--max-sessions)")
	close(busy)
	first.waitFor(t, "no key for 3s: session ended (--idle-timeout)")
}

// --metrics without --ssh is a headless exporter: no key files needed, the
// metrics served from its own poller, and SIGTERM ends it.
func TestServeHeadlessMetrics(t *testing.T) {
	cl, c := vtest.Cluster(t, 1)
	if _, err := echomq.Enqueue(bg, c, "orders", []byte("x")); err != nil {
		t.Fatal(err)
	}
	f := newServeFlags()
	f.root.conn.addr, f.root.conn.timeout = cl.Nodes[0].Addr(), 2*time.Second
	f.root.interval = time.Second
	f.metrics = "127.0.0.1:0"
	ctx, stop := context.WithCancel(bg)
	sv := startServe(t, ctx, f)
	addrs, done, out, errb := sv.addrs, sv.done, sv.out, sv.errb
	if addrs.ssh != "" {
		t.Errorf("an SSH listener on %s without --ssh", addrs.ssh)
	}
	var m []byte
	var status string
	if !vtest.Within(20*time.Second, func() bool {
		resp, err := http.Get("http://" + addrs.metrics + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		m, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.Status
		return bytes.Contains(m, []byte(`emqtop_queue_jobs{queue="orders",state="pending"} 1`)) &&
			bytes.Contains(m, []byte("emqtop_ssh_sessions 0"))
	}) {
		t.Fatalf("the exporter never served the queue (%s):\n%s\n%s", status, m, errb.String())
	}
	stop()
	if code := <-done; code != 0 || !strings.Contains(out.String(), "stopped") {
		t.Errorf("exit %d: %s", code, out.String())
	}
}

// SIGTERM ends every session as q does: each operator's terminal gets its
// main screen, its mouse and its cursor back, then the reason. (Three
// sessions: the shutdown once quit them one by one under the lock their
// own frames take, and all but one were cut off with their terminal left
// in the dashboard's modes.)
func TestShutdownRestoresEveryTerminal(t *testing.T) {
	cl, c := vtest.Cluster(t, 1)
	// dashboards busy drawing when the signal comes: the programs' own
	// signal handlers then raced serve's quit (and lost the terminal)
	seed := vtest.NewSeeder(t, c)
	for i := 0; i < 3000; i++ {
		seed.Job(fmt.Sprintf("busy-%04d", i), keyspace.TypePending, float64(i))
	}
	seed.Flush()
	dir := t.TempDir()
	key, line := sshKey(t, "dave")
	os.WriteFile(filepath.Join(dir, "operators"), []byte(line), 0o600)
	f := newServeFlags()
	f.root.conn.addr, f.root.conn.timeout = cl.Nodes[0].Addr(), 2*time.Second
	f.ssh, f.operators, f.hostKey = "127.0.0.1:0", filepath.Join(dir, "operators"), filepath.Join(dir, "host_key")
	f.root.auditLog, f.root.interval = filepath.Join(dir, "audit.log"), 250*time.Millisecond
	// a real SIGTERM to this process, as serve gets it: the test catches
	// it first (so the process lives), and ends serve on it as runServe does
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	defer signal.Stop(sig)
	ctx, stop := context.WithCancel(bg)
	defer stop()
	go func() {
		select {
		case <-sig:
			stop()
		case <-ctx.Done():
		}
	}()
	sv := startServe(t, ctx, f)
	var terms []*term
	for i := 0; i < 3; i++ {
		tm, err := dialTerm(t, sv.addrs.ssh, key, true)
		if err != nil {
			t.Fatal(err)
		}
		tm.waitFor(t, "LIVE")
		terms = append(terms, tm)
	}
	for _, tm := range terms {
		tm.waitFor(t, "3 sessions")
	}
	// a reader's huge window is drawn at the cap (it once took gigabytes)
	if err := terms[0].sess.WindowChange(10000, 20000); err != nil {
		t.Fatal(err)
	}
	terms[0].waitFor(t, "this terminal is 20000×10000: drawn as 500×300")
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-sv.done:
		if code != 0 {
			t.Errorf("serve ended %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not end after SIGTERM")
	}
	for i, tm := range terms {
		tm.waitFor(t, "emqtop serve is shutting down: session ended")
		tm.mu.Lock()
		raw := tm.out.String()
		tm.mu.Unlock()
		last := strings.LastIndex(raw, "\x1b[?1049h") // the last time it entered the dashboard's screen
		for _, seq := range []struct{ name, s string }{{"main screen", "\x1b[?1049l"}, {"cursor shown", "\x1b[?25h"}, {"mouse off", "\x1b[?1002l"}} {
			if !strings.Contains(raw[max(0, last):], seq.s) {
				t.Errorf("session %d: not restored (%s) after SIGTERM; it ends %q", i, seq.name, tail(raw, 300))
			}
		}
	}
}
