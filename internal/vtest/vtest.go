// Package vtest joins the tests' real servers to valkey-go clients.
package vtest

import (
	"testing"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/valkey-io/valkey-go"
)

// Client connects to c the way emqtop does (no client-side cache) and
// closes the client when the test ends.
func Client(t testing.TB, c *testcluster.Cluster) valkey.Client {
	t.Helper()
	cl, err := valkey.NewClient(valkey.ClientOption{InitAddress: c.Addrs(), DisableCache: true,
		// echomq.MaxRedirects, as poller.Config's clients (echomq's tests
		// cannot import it: they are imported here)
		ClusterOption: valkey.ClusterOption{MaxMovedRedirections: 8}})
	if err != nil {
		t.Fatalf("connect to %v: %v", c.Addrs(), err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Cluster starts a cluster of primaries (0: one standalone server) and
// returns it with a client.
func Cluster(t testing.TB, primaries int) (*testcluster.Cluster, valkey.Client) {
	t.Helper()
	c := testcluster.ForTest(t, testcluster.Options{Primaries: primaries})
	return c, Client(t, c)
}
