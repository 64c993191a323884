package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
)

// closingWriter takes n lines, then answers as a closed pipe does.
type closingWriter struct {
	n     int
	lines []string
	// until, when set, ends the stream early at the first line it holds
	// (the event awaited), rather than at a fixed count of polls
	until func(line string) bool
	// at runs a step when the stream has written that many lines
	at map[int]func()
}

func (w *closingWriter) Write(b []byte) (int, error) {
	if len(w.lines) == w.n || (w.until != nil && len(w.lines) > 0 && w.until(w.lines[len(w.lines)-1])) {
		return 0, syscall.EPIPE
	}
	w.lines = append(w.lines, string(b))
	if f := w.at[len(w.lines)]; f != nil {
		f()
	}
	return len(b), nil
}

// --watch --json writes one object a poll, with each queue's derived
// figures and the totals' and what the poll read and why (the trackers
// running, changes only: the queue carried over),
// and ends cleanly when its reader goes. The first line carries every
// queue, the next ones the queues that changed: none until a job is
// enqueued (at the fourth line), then the queue with it. --whole carries
// every queue on every line.
func TestWatchJSON(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	for i := 0; i < 5; i++ {
		echomq.Enqueue(context.Background(), c, "orders", []byte("x"))
	}
	type line struct {
		Seq       int            `json:"seq"`
		Read      string         `json:"read"`
		Why       map[string]int `json:"read_why"`
		Carried   int            `json:"carried"`
		QueuesAre string         `json:"queues_are"`
		Gone      []string       `json:"gone"`
		Queues    []struct {
			Name    string          `json:"name"`
			Pending int64           `json:"pending"`
			Trend   json.RawMessage `json:"trend"`
		} `json:"queues"`
		TotalsTrend map[string]any `json:"totals_trend"`
		Nodes       []struct {
			Tracking bool   `json:"tracking"`
			Full     string `json:"full"`
		} `json:"nodes"`
	}
	parse := func(i int, l string) line {
		var doc line
		if err := json.Unmarshal([]byte(l), &doc); err != nil || !strings.HasSuffix(l, "}\n") || strings.Count(l, "\n") != 1 {
			t.Fatalf("line %d is not one JSON object on one line: %v %q", i, err, l)
		}
		if doc.Seq != i+1 || len(doc.Nodes) != 3 || doc.TotalsTrend["direction"] == nil {
			t.Errorf("line %d: %+v", i, doc)
		}
		return doc
	}
	// the stream ends at the first line with the enqueued job (at most 240)
	w := &closingWriter{n: 240, until: func(l string) bool { return strings.Contains(l, `"pending":6`) }}
	w.at = map[int]func(){4: func() {
		if _, err := echomq.Enqueue(context.Background(), c, "orders", []byte("x")); err != nil {
			t.Error(err)
		}
	}}
	var errb strings.Builder
	rc := Main([]string{"--watch", "--json", "--interval", "250ms", "--addr", cl.Nodes[0].Addr()}, w, &errb)
	if rc != exitOK || len(w.lines) < 5 || len(w.lines) == 240 {
		t.Fatalf("rc %d after %d lines; stderr %q", rc, len(w.lines), errb.String())
	}
	for i, l := range w.lines {
		doc := parse(i, l)
		last := i == len(w.lines)-1
		switch {
		case i == 0 && (doc.QueuesAre != "all" || len(doc.Queues) != 1 || doc.Queues[0].Pending != 5):
			t.Errorf("the first line does not carry every queue: %+v", doc)
		case i > 0 && (doc.QueuesAre != "changed" || doc.Gone == nil || len(doc.Gone) != 0):
			t.Errorf("line %d is not a line of changes: %s", i, l)
		case i > 0 && !last && len(doc.Queues) != 0:
			t.Errorf("line %d carries a queue that did not change: %s", i, l)
		case last && (len(doc.Queues) != 1 || doc.Queues[0].Pending != 6 || !strings.Contains(string(doc.Queues[0].Trend), `"direction"`)):
			t.Errorf("the line of the enqueue carries %+v", doc.Queues)
		}
	}
	// the trackers running, a poll reads the changes only
	if doc := parse(len(w.lines)-2, w.lines[len(w.lines)-2]); len(w.lines) > 8 && (doc.Read != "changes" || doc.Carried != 1 ||
		!doc.Nodes[0].Tracking || !doc.Nodes[1].Tracking || !doc.Nodes[2].Tracking) {
		t.Errorf("a poll before the enqueue read more than the changes: %+v", doc)
	}
	w = &closingWriter{n: 4}
	if rc := Main([]string{"--watch", "--json", "--whole", "--interval", "250ms", "--addr", cl.Nodes[0].Addr()}, w, &errb); rc != exitOK {
		t.Fatalf("--whole: rc %d; stderr %q", rc, errb.String())
	}
	for i, l := range w.lines {
		if doc := parse(i, l); doc.QueuesAre != "all" || len(doc.Queues) != 1 || doc.Gone != nil {
			t.Errorf("--whole, line %d: %s", i, l)
		}
	}
	for _, bad := range [][]string{{"--watch"}, {"--watch", "--json", "--once"}, {"--json"}, {"--once", "--json", "--whole"}} {
		if rc := Main(append(bad, "--addr", cl.Nodes[0].Addr()), io.Discard, io.Discard); rc == exitOK {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The real binary: a reader that goes (| head) and SIGTERM both end the
// stream with exit status 0.
func TestWatchEndsCleanly(t *testing.T) {
	cl, _ := vtest.Cluster(t, 3)
	bin := filepath.Join(t.TempDir(), "emqtop")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	start := func() (*exec.Cmd, *bufio.Reader, io.Closer) {
		cmd := exec.Command(bin, "--watch", "--json", "--interval", "250ms", "--addr", cl.Nodes[0].Addr())
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(out)
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatalf("no first line: %v", err)
		}
		return cmd, r, out
	}
	exitCode := func(err error) int {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode() // -1 when killed by a signal
		}
		return 0
	}
	cmd, _, out := start()
	out.Close() // the reader goes, as head does
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 0 {
			t.Errorf("a closed pipe: exit %d (%v)", code, err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("still running 20s after its reader went")
	}
	cmd, r, _ := start()
	cmd.Process.Signal(syscall.SIGTERM)
	io.Copy(io.Discard, r)
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Errorf("SIGTERM: exit %d", code)
	}
}

// The README's read-only user may track (change-driven polls); one without
// client|tracking is read in full, and each node says why.
func TestTrackingNeedsItsACL(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	echomq.Enqueue(context.Background(), c, "orders", []byte("x"))
	untracked := append(append([]string{"untracked"}, readerACL[1:]...), "-client|tracking")
	for _, n := range cl.Nodes {
		conn, _ := testcluster.Dial(n.Addr())
		for _, acl := range [][]string{readerACL, untracked} {
			if _, err := conn.Do(append([]string{"ACL", "SETUSER"}, acl...)...); err != nil {
				t.Fatalf("ACL SETUSER: %v", err)
			}
		}
		conn.Close()
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("reader-secret\n"), 0o600)
	for _, user := range []string{"reader", "untracked"} {
		// the reader: until its first poll of changes with every node tracked (the trackers
		// start in the background: how many polls that takes depends on the
		// machine), at most 240 polls; the other: 8 polls, all in full
		w := &closingWriter{n: 8}
		if user == "reader" {
			// every primary tracked: under load a poll reads changes on two
			// nodes while the third's tracker is still starting
			w = &closingWriter{n: 240, until: func(l string) bool {
				return strings.Contains(l, `"read":"changes"`) && strings.Count(l, `"tracking":true`) == 3
			}}
		}
		var errb strings.Builder
		rc := Main([]string{"--watch", "--json", "--interval", "250ms", "--addr", cl.Nodes[0].Addr(), "--user", user, "--password-file", pw}, w, &errb)
		if rc != exitOK || len(w.lines) == 0 {
			t.Fatalf("%s: rc %d after %d lines; stderr %q", user, rc, len(w.lines), errb.String())
		}
		var doc struct {
			Read  string `json:"read"`
			Nodes []struct {
				Tracking bool   `json:"tracking"`
				Full     string `json:"full"`
			} `json:"nodes"`
		}
		if err := json.Unmarshal([]byte(w.lines[len(w.lines)-1]), &doc); err != nil {
			t.Fatal(err)
		}
		for _, n := range doc.Nodes {
			switch {
			case user == "reader" && (!n.Tracking || doc.Read != "changes"):
				t.Errorf("the README's reader is not tracked: %+v", doc)
			case user == "untracked" && (n.Tracking || !strings.Contains(n.Full, "tracking refused (NOPERM") || doc.Read != "full"):
				t.Errorf("a user without client|tracking: %+v", doc)
			}
		}
	}
}
