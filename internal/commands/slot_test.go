package commands

import (
	"bytes"
	"strings"
	"testing"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/keyspace"
)

func TestSlotOffline(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := Main([]string{"slot", "orders", "fills"}, &out, &errb); rc != 0 {
		t.Fatalf("rc = %d, stderr %q", rc, errb.String())
	}
	for _, want := range []string{"slot   105  emq:{orders}:*", "slot  4165  emq:{fills}:*"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "node") {
		t.Errorf("offline output names a node:\n%s", out.String())
	}
}

func TestSlotBadNames(t *testing.T) {
	for _, args := range [][]string{{"slot"}, {"slot", "a}b"}, {"slot", "emq"}, {"slot", "ok", "\x1b[2J"}} {
		var out, errb bytes.Buffer
		if rc := Main(args, &out, &errb); rc != exitUsage {
			t.Errorf("%q: rc = %d, want 2", args, rc)
		}
		if strings.Contains(errb.String(), "\x1b") {
			t.Errorf("%q: raw escape reached stderr: %q", args, errb.String())
		}
	}
}

func TestSlotAsksTheCluster(t *testing.T) {
	c := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	var out, errb bytes.Buffer
	// flags after the names are flags, not queue names
	if rc := Main([]string{"slot", "orders", "fills", "--addr", c.Nodes[1].Addr(), "emails"}, &out, &errb); rc != 0 {
		t.Fatalf("rc = %d, stderr %q", rc, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	// the owner each line names must be the one the cluster itself reports
	for i, q := range []string{"orders", "fills", "emails"} {
		owner, err := c.Owner(int(keyspace.QueueSlot(q)))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lines[i], "node "+c.Nodes[owner].Addr()) {
			t.Errorf("%s: %q does not name %s", q, lines[i], c.Nodes[owner].Addr())
		}
	}
}

// "--" ends the flags: what follows is a name even if it looks like a flag.
func TestSlotDoubleDash(t *testing.T) {
	var out, errb bytes.Buffer
	if rc := Main([]string{"slot", "orders", "--", "--addr"}, &out, &errb); rc != 0 {
		t.Fatalf("rc = %d, stderr %q", rc, errb.String())
	}
	if !strings.Contains(out.String(), `"--addr"`) || strings.Contains(out.String(), "node") {
		t.Errorf("after --, --addr is a queue name:\n%s", out.String())
	}
}

// --theme is checked before anything starts, in every command that takes
// it, and its error lists every value.
func TestThemeChecked(t *testing.T) {
	for _, args := range [][]string{{"--theme", "neon", "--addr", "127.0.0.1:1"}, {"--once", "--theme", "neon", "--addr", "127.0.0.1:1"},
		{"demo", "--theme", "neon"}} {
		var out, errb bytes.Buffer
		rc := Main(args, &out, &errb)
		if rc == 0 || !strings.Contains(errb.String(), `--theme "neon": want dark, light, mono or auto`) {
			t.Errorf("%q: rc %d, stderr %q", args, rc, errb.String())
		}
		if strings.Contains(errb.String(), "starting servers") {
			t.Errorf("%q: the demo started before the flag was checked", args)
		}
	}
}
