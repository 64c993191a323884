package testcluster

import "testing"

// ForTest starts servers for a test and stops them when it ends, whether it
// passes, fails or panics. No server binary is a test failure whose message
// says how to install one; it never skips.
func ForTest(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := Start(opts)
	if err != nil {
		t.Fatalf("testcluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}
