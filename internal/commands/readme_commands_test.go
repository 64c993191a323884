package commands

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/vtest"
)

// readmeCommands are the rows of the README's commands table: the text
// of its first cell, between the backquotes.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\n## Commands\n")
	end := strings.Index(s[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README has no ## Commands section")
	}
	var out []string
	row := regexp.MustCompile("^\\| `(emqtop[^`]*)` \\|")
	for _, line := range strings.Split(s[start:start+1+end], "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	if len(out) < 8 {
		t.Fatalf("the README's commands table has %d rows; expected the table", len(out))
	}
	return out
}

// run is one way of running a command of the README as a user would.
type run struct {
	args []string
	// first is what the first line of its output (stdout, else stderr)
	// must hold; for a TUI, a word the screen must show.
	first string
	tui   bool   // in a pseudo-terminal; q ends it
	term  bool   // runs until SIGTERM, which must end it with exit 0
	ready string // with term: what its output must show before SIGTERM
	code  int
}

// TestReadmeCommands runs every command of the README's commands table,
// each form a row shows, with the real binary on a real cluster: its exit
// code and its first line. A row with no run here fails the test, so a
// command added to the README is run, and a flag added to one path cannot
// break another unnoticed (demo --serve once failed on --budget).
func TestReadmeCommands(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	addr := cl.Nodes[0].Addr()
	ctx := context.Background()
	dir := t.TempDir()
	bin := filepath.Join(dir, "emqtop")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// a home with a key of its own, for demo --serve (~/.ssh/*.pub)
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	_, line := sshKey(t, "newcomer")
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519.pub"), []byte(line), 0o600)
	keys := filepath.Join(dir, "keys")
	os.WriteFile(keys, []byte(line), 0o600)

	for i := 0; i < 3; i++ {
		if _, err := echomq.Enqueue(ctx, c, "orders", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	job, ok, err := echomq.Claim(ctx, c, "orders", time.Minute)
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	audit := []string{"--audit-log", filepath.Join(dir, "audit.log")}
	runs := map[string][]run{
		"emqtop": {{args: []string{"--addr", addr}, tui: true, first: "LIVE"}},
		"emqtop --once [--json] [--jobs N]": {
			{args: []string{"--once", "--addr", addr}, first: "3/3 primaries"},
			{args: []string{"--once", "--json", "--addr", addr}, first: "{"},
			{args: []string{"--once", "--json", "--jobs", "2", "--addr", addr}, first: "{"},
		},
		"emqtop --watch --json": {{args: []string{"--watch", "--json", "--addr", addr}, first: "{", term: true}},
		"emqtop demo [--embedded] [--no-tui] [--serve]": {
			{args: []string{"demo"}, tui: true, first: "demo"},
			{args: []string{"demo", "--embedded"}, tui: true, first: "embedded demo"},
			{args: []string{"demo", "--no-tui"}, first: "demo running on", term: true},
			{args: []string{"demo", "--embedded", "--no-tui"}, first: "demo running on", term: true},
			{args: []string{"demo", "--serve"}, first: "may join", ready: "dashboards over SSH", term: true},
			{args: []string{"demo", "--embedded", "--no-tui", "--serve"}, first: "may join", ready: "dashboards over SSH", term: true},
		},
		"emqtop serve --readers F --operators F [--ssh ADDR] [--metrics ADDR]": {
			{args: []string{"serve", "--addr", addr, "--readers", keys, "--operators", keys, "--ssh", "127.0.0.1:0",
				"--host-key", filepath.Join(dir, "host_key"), "--metrics", "127.0.0.1:0"}, first: "emqtop serve: host key", ready: "Prometheus metrics on", term: true},
		},
		"emqtop slot QUEUE...": {
			{args: []string{"slot", "orders"}, first: "orders"},
			{args: []string{"slot", "orders", "--addr", addr}, first: "orders"},
		},
		"emqtop requeue --queue Q --job ID --attempts N": {
			{args: append([]string{"requeue", "--queue", "orders", "--job", job.ID, "--attempts", "9", "--addr", addr}, audit...), first: "refused", code: exitRefused},
			{args: append([]string{"requeue", "--queue", "orders", "--job", job.ID, "--attempts", strconv.FormatInt(job.Attempts, 10), "--addr", addr}, audit...), first: "requeued"},
		},
		"emqtop requeue --queue Q --expired [--limit N]": {
			{args: append([]string{"requeue", "--queue", "orders", "--expired", "--limit", "10", "--addr", addr}, audit...), first: "requeued 0"},
		},
		"emqtop drain --queue Q --yes": {
			{args: append([]string{"drain", "--queue", "orders", "--yes", "--addr", addr}, audit...), first: "drained 3"},
		},
		"emqtop rebalance [--by jobs] [--max-moves N] [--json]": {
			{args: []string{"rebalance", "--addr", addr}, first: "emqtop rebalance: by jobs"},
			{args: []string{"rebalance", "--by", "queues", "--max-moves", "2", "--json", "--addr", addr}, first: "{"},
		},
		"emqtop keys": {{args: []string{"keys"}, first: "| pane | key | does |"}},
	}
	for _, row := range readmeCommands(t) {
		rs, ok := runs[row]
		if !ok {
			t.Errorf("the README's command %q is run by no test: add its runs to TestReadmeCommands", row)
			continue
		}
		delete(runs, row)
		for _, r := range rs {
			cmd := exec.Command(bin, r.args...)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
			name := strings.Join(r.args, " ")
			if r.tui {
				runTUICommand(t, cmd, name, r.first)
				continue
			}
			runCommand(t, cmd, name, r)
		}
	}
	for row := range runs {
		t.Errorf("TestReadmeCommands runs %q, which the README's table no longer has", row)
	}
}

// runCommand runs cmd with pipes: its first line of output must hold
// r.first; one that runs until SIGTERM is sent it once that line came.
func runCommand(t *testing.T, cmd *exec.Cmd, name string, r run) {
	t.Helper()
	var errb syncBuffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines, ready := make(chan string, 1), make(chan struct{})
	go func() {
		br := bufio.NewReader(out)
		line, _ := br.ReadString('\n')
		lines <- line
		for r.ready != "" && !strings.Contains(line, r.ready) {
			var err error
			if line, err = br.ReadString('\n'); err != nil {
				break
			}
		}
		close(ready)
		io.Copy(io.Discard, br)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s: no output in 90s; stderr: %s", name, errb.String())
	}
	if r.term {
		select {
		case <-ready:
		case <-time.After(90 * time.Second):
			t.Errorf("%s: %q not in its output in 90s", name, r.ready)
		}
		cmd.Process.Signal(syscall.SIGTERM)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCodeOf(err); code != r.code {
			t.Errorf("%s: exit %d, want %d; stderr: %s", name, code, r.code, errb.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Errorf("%s: still running 60s after it should have ended", name)
	}
	if first == "" { // nothing on stdout: the first line on stderr, where errors go (whole once Wait returned)
		first, _, _ = strings.Cut(errb.String(), "\n")
	}
	if !strings.Contains(first, r.first) {
		t.Errorf("%s: first line %q, want it to hold %q; stderr: %s", name, first, r.first, errb.String())
	}
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// runTUICommand runs cmd in a pseudo-terminal of 120×40, waits for want
// on screen, presses q, and wants exit 0.
func runTUICommand(t *testing.T, cmd *exec.Cmd, name, want string) {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var screen syncBuffer
	seen := make(chan struct{})
	go func() {
		buf := make([]byte, 32<<10)
		once := false
		for {
			n, err := f.Read(buf)
			screen.Write(buf[:n])
			if !once && strings.Contains(screen.String(), want) {
				once = true
				close(seen)
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	select {
	case <-seen:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s: %q not on screen in 90s; it showed:\n%s", name, want, tail(screen.String(), 2000))
	}
	f.Write([]byte("q"))
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCodeOf(err); code != 0 {
			t.Errorf("%s: q gave exit %d; screen:\n%s", name, code, tail(screen.String(), 2000))
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Errorf("%s: still running 60s after q", name)
	}
}
