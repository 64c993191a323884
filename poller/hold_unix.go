//go:build unix

package poller

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// dialQuiet dials a TCP connection that the runtime's network poller
// does not watch: its socket is read and written by blocking system
// calls. The poller wakes the process whenever data comes to a socket it
// watches, read or not: a held tracker's connection, its pushes left
// unread, still woke it once a push (1,800 wake-ups a second of a
// process at 1,000 writes a second, spread). Unwatched, data that comes
// while nothing reads wakes nothing. The socket is a copy of the dialed
// one's, made blocking, and the dialed one is closed (which takes it out
// of the poller); deadlines are the socket's own timeouts (SO_RCVTIMEO,
// SO_SNDTIMEO), from each call's start.
func dialQuiet(ctx context.Context, dst string, d *net.Dialer) (net.Conn, error) {
	c, err := d.DialContext(ctx, "tcp", dst)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, errors.New("not a TCP connection")
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	cerr := raw.Control(func(s uintptr) {
		if fd, err = syscall.Dup(int(s)); err == nil {
			syscall.CloseOnExec(fd)
			err = syscall.SetNonblock(fd, false)
		}
	})
	if err = errors.Join(cerr, err); err != nil {
		if fd >= 0 {
			syscall.Close(fd)
		}
		return nil, err
	}
	// a blocking descriptor: os.File reads and writes it with plain
	// system calls, never through the poller, and counts its users, so
	// Close never frees the number under a read
	f := os.NewFile(uintptr(fd), "tcp:"+dst)
	return &quietConn{f: f, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

// quietConn is a blocking socket as a net.Conn.
type quietConn struct {
	f             *os.File
	local, remote net.Addr
	closeOnce     sync.Once
}

func (c *quietConn) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	return n, c.err(err)
}

func (c *quietConn) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	return n, c.err(err)
}

// err makes a socket timeout a deadline's error, as a net.Conn's.
func (c *quietConn) err(err error) error {
	if errors.Is(err, syscall.EAGAIN) {
		return os.ErrDeadlineExceeded
	}
	return err
}

// Close shuts the socket down first: a read blocked in the kernel returns
// then (closing the descriptor alone would leave it blocked).
func (c *quietConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		c.control(func(fd int) { syscall.Shutdown(fd, syscall.SHUT_RDWR) })
		err = c.f.Close()
	})
	return err
}

func (c *quietConn) control(f func(fd int)) {
	if raw, err := c.f.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { f(int(fd)) })
	}
}

func (c *quietConn) LocalAddr() net.Addr  { return c.local }
func (c *quietConn) RemoteAddr() net.Addr { return c.remote }

func (c *quietConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}
func (c *quietConn) SetReadDeadline(t time.Time) error {
	return c.timeout(syscall.SO_RCVTIMEO, t)
}
func (c *quietConn) SetWriteDeadline(t time.Time) error {
	return c.timeout(syscall.SO_SNDTIMEO, t)
}

// timeout sets the socket's timeout for opt to what is left until t (none
// for the zero time; a microsecond for a time passed, since zero is none).
func (c *quietConn) timeout(opt int, t time.Time) error {
	var d time.Duration
	if !t.IsZero() {
		d = max(time.Until(t), time.Microsecond)
	}
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	var err error
	c.control(func(fd int) { err = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv) })
	return err
}
