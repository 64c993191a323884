package testcluster

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStandalone(t *testing.T) {
	c := ForTest(t, Options{})
	if len(c.Nodes) != 1 {
		t.Fatalf("nodes = %d, want 1", len(c.Nodes))
	}
	if got, err := doString(c.Nodes[0].Addr(), "PING"); err != nil || got != "PONG" {
		t.Fatalf("PING = %q, %v", got, err)
	}
}

func TestClusterFormsAndCloses(t *testing.T) {
	start := time.Now()
	c, err := Start(Options{Primaries: 3, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("3 primaries + 3 replicas healthy in %v", time.Since(start))
	for i := 0; i < 3; i++ {
		for _, s := range []int{i * 16384 / 3, (i+1)*16384/3 - 1} {
			if o, err := c.Owner(s); err != nil || o != i {
				t.Errorf("slot %d owner = %d, %v; want %d", s, o, err, i)
			}
		}
	}
	for _, n := range c.Nodes[3:] {
		repl, err := doString(n.Addr(), "INFO", "replication")
		if err != nil || !strings.Contains(repl, "role:slave") {
			t.Errorf("%s is not a replica: %v %q", n.Addr(), err, repl)
		}
	}
	pids := []int{}
	for _, n := range c.Nodes {
		pids = append(pids, n.PID())
	}
	dir := c.Dir()
	c.Close()
	for _, p := range pids {
		if _, err := os.Stat("/proc/" + strconv.Itoa(p)); err == nil {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status"); !strings.Contains(string(b), "zombie") {
				t.Errorf("process %d still alive after Close", p)
			}
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s left behind: %v", dir, err)
	}
}

func TestPauseResumeKillRestartMove(t *testing.T) {
	c := ForTest(t, Options{Primaries: 2})
	a := c.Nodes[0].Addr()
	// a key in slot 0..8191 lives on node 0; "{a}" hashes to slot 15495 and
	// "{b}" to 3300.
	if _, err := do(c.Nodes[0].Addr(), "SET", "{b}k", "v"); err != nil {
		t.Fatalf("SET on owner: %v", err)
	}
	if err := c.Pause(0); err != nil {
		t.Fatal(err)
	}
	conn, err := Dial(a)
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.c.SetDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := conn.read(); err == nil {
		t.Fatal("a paused node answered")
	}
	conn.Close()
	if err := c.Resume(0); err != nil {
		t.Fatal(err)
	}
	if got, err := doString(a, "PING"); err != nil || got != "PONG" {
		t.Fatalf("after resume PING = %q, %v", got, err)
	}
	if err := c.MoveSlots(0, 1, 3300, 3300); err != nil {
		t.Fatal(err)
	}
	if o, err := c.Owner(3300); err != nil || o != 1 {
		t.Fatalf("owner of 3300 after move = %d, %v", o, err)
	}
	if got, err := doString(c.Nodes[1].Addr(), "GET", "{b}k"); err != nil || got != "v" {
		t.Fatalf("key after move = %q, %v", got, err)
	}
	c.Kill(1)
	if c.Nodes[1].Running() {
		t.Fatal("killed node still running")
	}
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	if !c.Nodes[1].Running() {
		t.Fatal("restarted node not running")
	}
}

func BenchmarkStartThreePrimaries(b *testing.B) {
	for b.Loop() {
		c, err := Start(Options{Primaries: 3})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// A port taken between the check and the server's bind (another test
// package starting servers at the same time) costs a retry on other ports,
// not a failed test.
func TestPortTakenIsRetried(t *testing.T) {
	bin, err := FindServer()
	if err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	c := &Cluster{Binary: bin, dir: t.TempDir()}
	n := &Node{Port: port, Primary: -1}
	c.Nodes = []*Node{n}
	defer c.Close()
	if err := c.writeConfig(n); err != nil {
		t.Fatal(err)
	}
	if err := c.spawn(n); err != nil {
		t.Fatal(err)
	}
	if err := c.waitUp(n); err != nil {
		t.Fatalf("not retried: %v", err)
	}
	if n.Port == port {
		t.Fatalf("still on the taken port %d", port)
	}
	if got, err := doString(n.Addr(), "PING"); err != nil || got != "PONG" {
		t.Fatalf("PING on the new port = %q, %v", got, err)
	}
}
