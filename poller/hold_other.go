//go:build !unix

package poller

import (
	"context"
	"net"
)

// dialQuiet dials as valkey-go would: away from unix, the held tracker's
// socket stays watched by the runtime's poller (its pushes are still read
// at the poll, but each still wakes the process).
func dialQuiet(ctx context.Context, dst string, d *net.Dialer) (net.Conn, error) {
	return d.DialContext(ctx, "tcp", dst)
}
