package testcluster

import (
	"bufio"
	"io"
	"net"
	"strings"
)

// TB is the part of testing.TB that ForTest uses. It is named here so that
// this package does not import testing: the demo starts its servers with
// this package, and testing must not be linked into the shipped binary.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// ForTest starts servers for a test and stops them when it ends, whether it
// passes, fails or panics. No server binary is a test failure whose message
// says how to install one; it never skips.
func ForTest(t TB, opts Options) *Cluster {
	t.Helper()
	c, err := Start(opts)
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// FakeServer listens on a loopback port and answers every command (a line
// that starts with '*', a RESP array, or an inline GET) with reply, as it
// is: a port that speaks something other than RESP, a server whose error
// text is hostile, or one whose reply headers declare what no client
// should allocate. It stops when the test ends.
func FakeServer(t TB, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if !strings.HasPrefix(line, "*") && !strings.HasPrefix(line, "GET ") {
						continue // an argument of a command (no argument of ours starts so)
					}
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}
