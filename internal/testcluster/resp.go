package testcluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Conn is a minimal RESP2 connection, enough to form and steer a cluster
// without any client library.
type Conn struct {
	c       net.Conn
	r       *bufio.Reader
	timeout time.Duration
}

// ServerError is an error reply from the server.
type ServerError string

func (e ServerError) Error() string { return string(e) }

// Dial connects to addr with a timeout on every exchange.
func Dial(addr string) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &Conn{c: c, r: bufio.NewReader(c)}, nil
}

// SetTimeout bounds each later command's round trip (10s by default).
func (c *Conn) SetTimeout(d time.Duration) { c.timeout = d }

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Do sends one command and reads its reply: string, int64, []any, nil, or an
// error (ServerError for an error reply).
func (c *Conn) Do(args ...string) (any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	timeout := c.timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	_ = c.c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.c.Write([]byte(b.String())); err != nil {
		return nil, err
	}
	return c.read()
}

// String runs a command whose reply is a string.
func (c *Conn) String(args ...string) (string, error) {
	v, err := c.Do(args...)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: reply %T, want a string", args[0], v)
	}
	return s, nil
}

func (c *Conn) read() (any, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return nil, ServerError(body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		out := make([]any, n)
		for i := range out {
			v, err := c.read()
			var se ServerError
			if err != nil && !errors.As(err, &se) {
				return nil, err
			}
			if err != nil {
				v = se
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected reply %q", line)
}

// Info is a node's INFO section, read on a connection of its own.
func Info(addr, section string) (string, error) {
	c, err := Dial(addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.String("INFO", section)
}
