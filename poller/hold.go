package poller

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// Hold keeps the connections of a tracker's own client from being read
// while they owe no reply. A node tells its trackers of writes as they
// happen: at 1,000 writes a second spread over the second, each push woke
// the process to read it (valkey-go reads every connection in a goroutine
// of its own), and on a VM a wake-up from idle costs the runtime 150-250
// µs of CPU: a change-driven poll at 10,000 queues went from 21-27 ms to
// 86-116 ms of emqtop's CPU with the same writes in a thousand batches a
// second instead of ten (issue 24). Once held, a connection is read only
// while a command written on it awaits its reply: the pushes stay in the
// socket, and the node's output buffer behind it, until the tracker's
// Sync writes its PING; they are read then, in a few large reads, with
// the PING's reply, after which the reads wait again. The commands and
// the replies are counted as the bytes go (respScanner), pushes apart.
//
// The zero Hold is not held. A connection closed while its read waits
// ends the read.
type Hold struct {
	mu      sync.Mutex
	held    bool
	changed chan struct{} // closed, and made anew, at each change
}

// hold makes the reads of connections that owe no reply wait.
func (h *Hold) hold() { h.set(true) }

func (h *Hold) set(held bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = held
	h.bump()
}

// bump tells the reads waiting that something changed; h.mu is held.
func (h *Hold) bump() {
	if h.changed != nil {
		close(h.changed)
	}
	h.changed = make(chan struct{})
}

// dialHeld dials a connection the runtime's poller does not watch
// (dialQuiet), TLS over it when tc is set, its replies checked as
// dialGuarded's are, and its reads under h.
func dialHeld(h *Hold) func(context.Context, string, *net.Dialer, *tls.Config) (net.Conn, error) {
	return func(ctx context.Context, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
		c, err := dialQuiet(ctx, dst, d)
		if err != nil {
			return nil, err
		}
		if tc != nil {
			if c, err = handshake(ctx, c, dst, d, tc); err != nil {
				return nil, err
			}
		}
		return &heldConn{guardedConn: &guardedConn{Conn: c}, h: h, closed: make(chan struct{})}, nil
	}
}

// handshake is TLS's over c as tls.Dialer's would be: the server's name
// from dst unless tc names it, the dialer's timeout its bound (as a
// deadline on c: a blocking socket's read is not ended by ctx).
func handshake(ctx context.Context, c net.Conn, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
	cfg := tc
	if cfg.ServerName == "" {
		cfg = tc.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(dst)
	}
	if d.Timeout > 0 {
		c.SetDeadline(time.Now().Add(d.Timeout))
	}
	t := tls.Client(c, cfg)
	if err := t.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return t, nil
}

// heldConn is a connection whose reads wait while its Hold is held and it
// owes no reply.
type heldConn struct {
	*guardedConn // its scanner counts the replies read
	h            *Hold
	closed       chan struct{}
	closeOnce    sync.Once
	// sent and replied: the commands written and the replies read, both
	// under h.mu; w counts the commands in what is written
	sent, replied int64
	w             respScanner
}

func (c *heldConn) Read(p []byte) (int, error) {
	for {
		c.h.mu.Lock()
		if !c.h.held || c.sent > c.replied {
			c.h.mu.Unlock()
			break
		}
		changed := c.h.changed
		c.h.mu.Unlock()
		select {
		case <-changed:
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
	n, err := c.guardedConn.Read(p)
	c.h.mu.Lock()
	c.replied = c.s.replies // its only reader is this goroutine
	c.h.mu.Unlock()
	return n, err
}

// Write counts the commands written: their replies are read as they come.
func (c *heldConn) Write(p []byte) (int, error) {
	c.h.mu.Lock()
	c.w.scan(p)
	c.sent = c.w.replies
	c.h.bump()
	c.h.mu.Unlock()
	return c.guardedConn.Write(p)
}

func (c *heldConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.guardedConn.Close()
}
