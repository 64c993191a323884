package poller

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
)

// The bounds a server's reply must keep. valkey-go allocates what a reply
// header declares before the data comes: a hostile or broken server that
// sends *2000000000 or %2000000000 made the process die out of memory at
// once, and a 2,000,000-deep array took 726 MB. Nothing emqtop asks for
// comes near them (its largest replies are a page of SCAN, a snapshot
// batch, CLUSTER SHARDS and SLOT-STATS of 16384 slots).
const (
	maxAggregate = 1 << 20  // elements of one array, set, push or map (pairs counted twice)
	maxBulk      = 64 << 20 // bytes of one bulk string
	maxLine      = 1 << 20  // bytes of a simple string, error or number line
	maxDepth     = 64       // aggregates within aggregates
)

// ReplyBoundError is a reply over the bounds: the connection is closed and
// the commands on it fail with this.
type ReplyBoundError struct{ What string }

func (e *ReplyBoundError) Error() string {
	return "the server's reply " + e.What + ": emqtop closed the connection (a broken or hostile server)"
}

// NotRESPError: what the port sent is no RESP reply at all.
type NotRESPError struct{ Start string }

func (e *NotRESPError) Error() string {
	return fmt.Sprintf("that port answered, but not as Valkey or Redis (another kind of server, such as HTTP?): it began %q", e.Start)
}

// dialGuarded dials as valkey-go would, and wraps the connection so that
// its replies are checked against the bounds as they are read.
func dialGuarded(ctx context.Context, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
	var c net.Conn
	var err error
	if tc != nil {
		c, err = (&tls.Dialer{NetDialer: d, Config: tc}).DialContext(ctx, "tcp", dst)
	} else {
		c, err = d.DialContext(ctx, "tcp", dst)
	}
	if err != nil {
		return nil, err
	}
	return &guardedConn{Conn: c}, nil
}

// guardedConn reads through a RESP scanner that follows the replies'
// structure (headers, bulk payloads, nesting) and fails the read that
// brings a header over the bounds, before valkey-go sees it.
type guardedConn struct {
	net.Conn
	s respScanner
}

func (g *guardedConn) Read(p []byte) (int, error) {
	n, err := g.Conn.Read(p)
	if n > 0 {
		if serr := g.s.scan(p[:n]); serr != nil {
			g.Conn.Close()
			return 0, serr
		}
	}
	return n, err
}

// respScanner is a RESP2/RESP3 reader that keeps only what it needs to
// check the bounds: the header line being read, the bytes of bulk payload
// left to skip, and the elements left in each open aggregate.
type respScanner struct {
	line  []byte // the header line so far (type byte first)
	skip  int64  // payload bytes, and its CRLF, still to come
	stack []int64
	err   error
	// replies counts the values done at the top level that are not pushes
	// (the replies; on written bytes, the commands); push: the value at the
	// top level now is one
	replies int64
	push    bool
}

func (s *respScanner) scan(p []byte) error {
	if s.err != nil {
		return s.err
	}
	for i := 0; i < len(p); {
		if s.skip > 0 {
			k := min(int64(len(p)-i), s.skip)
			s.skip -= k
			i += int(k)
			if s.skip == 0 {
				s.done()
			}
			continue
		}
		c := p[i]
		i++
		s.line = append(s.line, c)
		if len(s.line) > maxLine {
			s.err = &ReplyBoundError{What: fmt.Sprintf("has a line of more than %d bytes", maxLine)}
			return s.err
		}
		if c != '\n' || len(s.line) < 2 || s.line[len(s.line)-2] != '\r' {
			continue
		}
		if err := s.header(s.line[:len(s.line)-2]); err != nil {
			s.err = err
			return err
		}
		s.line = s.line[:0]
	}
	return nil
}

// header takes one complete header line (no CRLF).
func (s *respScanner) header(h []byte) error {
	if len(h) == 0 {
		return &ReplyBoundError{What: "has an empty line where a type was due"}
	}
	num := func() (int64, error) {
		n, err := strconv.ParseInt(string(h[1:]), 10, 64)
		if err != nil {
			return 0, &ReplyBoundError{What: fmt.Sprintf("declares a length that is not a number (%q)", limitBytes(h, 32))}
		}
		return n, nil
	}
	if len(s.stack) == 0 {
		s.push = h[0] == '>'
	}
	switch h[0] {
	case '+', '-', ':', '_', '#', ',', '(':
		s.done()
	case '$', '!', '=':
		n, err := num()
		if err != nil {
			return err
		}
		switch {
		case n < 0:
			s.done() // null
		case n > maxBulk:
			return &ReplyBoundError{What: fmt.Sprintf("declares a string of %d bytes, over emqtop's bound of %d", n, maxBulk)}
		default:
			s.skip = n + 2
		}
	case '*', '~', '>', '%', '|':
		n, err := num()
		if err != nil {
			return err
		}
		if h[0] == '%' || h[0] == '|' {
			n *= 2
		}
		switch {
		case n < 0:
			s.done()
			return nil
		case n > maxAggregate:
			return &ReplyBoundError{What: fmt.Sprintf("declares an aggregate of %d elements, over emqtop's bound of %d", n, maxAggregate)}
		case len(s.stack) >= maxDepth:
			return &ReplyBoundError{What: fmt.Sprintf("nests aggregates more than %d deep", maxDepth)}
		}
		if h[0] == '|' {
			n++ // an attribute goes with the value after it: one element of its parent
		}
		if n == 0 {
			s.done()
			return nil
		}
		s.stack = append(s.stack, n)
	default:
		return &NotRESPError{Start: limitBytes(h, 16)}
	}
	return nil
}

// done ends a value: its aggregate has one element less, and an aggregate
// whose elements are all in is a value done in its own parent.
func (s *respScanner) done() {
	for len(s.stack) > 0 {
		top := len(s.stack) - 1
		if s.stack[top]--; s.stack[top] > 0 {
			return
		}
		s.stack = s.stack[:top]
	}
	if !s.push {
		s.replies++
	}
}

func limitBytes(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
