package testcluster

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
