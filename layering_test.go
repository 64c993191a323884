package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The shipped binary links no test code: package testing is not among its
// dependencies (the demo starts servers through internal/testcluster, which
// must not import it); ui reaches the keyspace and the servers only through
// the model and its interfaces.
func TestLayering(t *testing.T) {
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		m := map[string]bool{}
		for _, l := range strings.Fields(string(out)) {
			m[l] = true
		}
		return m
	}
	if deps(".")["testing"] {
		t.Error("the binary links package testing: a test helper is imported by non-test code")
	}
	out, err := exec.Command("go", "list", "-f", "{{join .Imports \" \"}}", "./ui").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./ui: %v\n%s", err, out)
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasSuffix(imp, "/keyspace") || strings.Contains(imp, "valkey-go") {
			t.Errorf("ui imports %s: the poller puts what the UI needs of keys in the model", imp)
		}
	}
}
