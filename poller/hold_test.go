package poller

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// unreadBytes is what waits in the kernel, unread, on this process's TCP
// socket from local port lport to rport (/proc/net/tcp's rx_queue).
func unreadBytes(t *testing.T, lport, rport int) int {
	t.Helper()
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", lport)
	s := bufio.NewScanner(f)
	for s.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue ...
		fs := strings.Fields(s.Text())
		if len(fs) < 5 || !strings.HasSuffix(fs[1], want) || !strings.HasSuffix(fs[2], fmt.Sprintf(":%04X", rport)) {
			continue
		}
		_, rx, _ := strings.Cut(fs[4], ":")
		n, _ := strconv.ParseInt(rx, 16, 64)
		return int(n)
	}
	t.Fatalf("no socket from port %d to %d in /proc/net/tcp", lport, rport)
	return 0
}

// clientPort is the local port of the connection the node knows as id.
func clientPort(t *testing.T, conn *testcluster.Conn, id int64) int {
	t.Helper()
	line, err := conn.String("CLIENT", "LIST", "ID", strconv.FormatInt(id, 10))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(line) {
		if a, ok := strings.CutPrefix(f, "addr="); ok {
			_, p, _ := net.SplitHostPort(a)
			n, _ := strconv.Atoi(p)
			return n
		}
	}
	t.Fatalf("no addr= in %q", line)
	return 0
}

// A held tracker leaves the node's pushes in its socket between polls,
// unread (so a write wakes nothing here), and Sync reads them all: the
// write is in the next Take, and the one after Sync is held again.
func TestHeldTrackerReadsPushesAtSync(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	owner, _ := cl.Owner(int(keyspace.QueueSlot("orders")))
	addr := cl.Nodes[owner].Addr()
	tr, err := StartHeldTracker(ctx, Config{Addrs: cl.Addrs()}.HeldDialer(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	conn, err := testcluster.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lport, rport := clientPort(t, conn, tr.ID()), cl.Nodes[owner].Port
	tr.Take() // a new tracker vouches for nothing
	for round := range 2 {
		if err := tr.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if slots, all, _ := tr.Take(); all || len(slots) != 0 {
			t.Fatalf("round %d: before the write the tracker saw %v, all %v", round, slots, all)
		}
		if _, err := echomq.Enqueue(ctx, c, "orders", []byte("x")); err != nil {
			t.Fatal(err)
		}
		// the write is acknowledged; its push comes to the socket and stays
		vtest.Until(t, 30*time.Second, "the push to wait in the tracker's socket", func() bool { return unreadBytes(t, lport, rport) > 0 })
		if slots, all, _ := tr.Take(); all || len(slots) != 0 {
			t.Fatalf("round %d: the tracker read a push while held: %v, all %v", round, slots, all)
		}
		if n := unreadBytes(t, lport, rport); n == 0 {
			t.Fatalf("round %d: the push was read while held", round)
		}
		if err := tr.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if slots, all, alive := tr.Take(); all || !alive || !slices.Equal(slots, []uint16{keyspace.QueueSlot("orders")}) {
			t.Fatalf("round %d: after Sync the tracker gave %v, all %v, alive %v", round, slots, all, alive)
		}
	}
	// a connection killed while held: the next Sync says so, within its
	// deadline, and the tracker no longer vouches
	if _, err := conn.Do("CLIENT", "KILL", "ID", strconv.FormatInt(tr.ID(), 10)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Sync(ctx); err == nil {
		t.Fatal("Sync on a killed tracking connection succeeded")
	}
	vtest.Until(t, 30*time.Second, "the tracker to know it is lost", func() bool { _, all, alive := tr.Take(); return all && !alive })
}

// Close ends a held tracker whose reader waits at the hold, and one whose
// reader waits in the kernel (the hold released, nothing to read).
func TestHeldTrackerCloses(t *testing.T) {
	cl, _ := vtest.Cluster(t, 0)
	for _, released := range []bool{false, true} {
		tr, err := StartHeldTracker(ctx, Config{Addrs: cl.Addrs()}.HeldDialer(), cl.Addrs()[0])
		if err != nil {
			t.Fatal(err)
		}
		if released {
			tr.hold.set(false)
		}
		done := make(chan struct{})
		go func() { tr.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("Close of a held tracker (released %v) did not return", released)
		}
	}
}

// A quiet connection's deadlines are the socket's timeouts: a read past
// one fails as a net.Conn's does, and the zero time takes it away.
func TestQuietConnDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	c, err := dialQuiet(ctx, ln.Addr().String(), &net.Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer := <-accepted
	defer peer.Close()
	if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline gave %v", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	go peer.Write([]byte("+PONG\r\n"))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("a read with no deadline gave %q, %v", buf[:n], err)
	}
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
}
