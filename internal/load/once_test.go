package load

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/poller"
)

// BenchmarkOnce is `emqtop --once --json` at scale against the server's
// floor (the scale issue's 4th goal), on the cluster BenchmarkLoad seeds:
//
//   - floor-ms: the server time of one full poll on its busiest primary
//     (INFO commandstats around one Poll, every command counted; the
//     primaries serve in parallel, so no poll can be shorter), and
//     poll-ms that poll's own wall time, discovery-ms the discovery
//     before it (a poller as --once's, in this process);
//
//   - once-wall-ms, once-rss-MB: the real binary, run whole (discovery,
//     its polls, the JSON of every queue written to a file), and
//     once-server-ms, the server time it cost the busiest primary.
//
//     EMQTOP_LOAD_QUEUES=100000 go test ./internal/load -run x -bench Once -benchtime 1x
func BenchmarkOnce(b *testing.B) {
	cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
	c := vtest.Client(b, cl)
	seed(b, c)
	bin := filepath.Join(b.TempDir(), "emqtop")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/echomq/emqtop").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	addr := cl.Nodes[0].Addr()
	for b.Loop() {
		// the floor, in this process
		p := poller.New(c, poller.Options{Once: true, Timeout: 10 * time.Second})
		t0 := time.Now()
		if err := p.DiscoverAll(context.Background()); err != nil {
			b.Fatal(err)
		}
		discovery := time.Since(t0)
		before := serverUsec(b, cl)
		s, err := p.Poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		after := serverUsec(b, cl)
		p.Close()
		var floor int64
		for i := range before {
			floor = max(floor, after[i]-before[i])
		}
		// the binary, whole
		outFile := filepath.Join(b.TempDir(), "once.json")
		w, err := os.Create(outFile)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "--once", "--json", "--timeout", "10s", "--addr", addr)
		cmd.Stdout, cmd.Stderr = w, os.Stderr
		before = serverUsec(b, cl)
		t0 = time.Now()
		err = cmd.Run()
		wall := time.Since(t0)
		after = serverUsec(b, cl)
		w.Close()
		var onceServer int64
		for i := range before {
			onceServer = max(onceServer, after[i]-before[i])
		}
		if err != nil {
			b.Fatalf("emqtop --once: %v", err)
		}
		rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // kB on Linux
		raw, err := os.ReadFile(outFile)
		if err != nil {
			b.Fatal(err)
		}
		var doc struct {
			Queues []struct{} `json:"queues"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			b.Fatal(err)
		}
		if len(doc.Queues) != queues || s.Queues.Len() != queues {
			b.Fatalf("--once printed %d queues, the poller read %d, want %d", len(doc.Queues), s.Queues.Len(), queues)
		}
		fl, poll, srv := float64(floor)/1000, float64(s.Poll.Duration.Microseconds())/1000, float64(onceServer)/1000
		b.ReportMetric(fl, "floor-ms")
		b.ReportMetric(poll, "poll-ms")
		b.ReportMetric(float64(wall.Milliseconds()), "once-wall-ms")
		b.ReportMetric(srv, "once-server-ms")
		b.ReportMetric(rss, "once-rss-MB")
		b.ReportMetric(float64(discovery.Milliseconds()), "discovery-ms")
		b.Logf("%d queues: discovery %v (no queue read); a full poll %.0f ms, %.2f× its floor of %.0f ms; --once whole %v (%.2f× a full poll), %.0f MB at its peak, %d MB of JSON, %.0f ms of the busiest primary (%.2f× the floor)",
			queues, discovery.Round(time.Millisecond), poll, poll/fl, fl, wall.Round(time.Millisecond), float64(wall.Milliseconds())/poll, rss, len(raw)>>20, srv, srv/fl)
	}
}

// serverUsec is each primary's server time so far, every command, from
// INFO commandstats (the INFO itself is counted by the next read, the
// same on both sides of a difference).
func serverUsec(b *testing.B, cl *testcluster.Cluster) []int64 {
	var out []int64
	for _, n := range cl.Nodes {
		info, err := testcluster.Info(n.Addr(), "commandstats")
		if err != nil {
			b.Fatal(err)
		}
		var us int64
		for _, line := range strings.Split(info, "\n") {
			if _, rest, ok := strings.Cut(strings.TrimSpace(line), "usec="); ok {
				v, _, _ := strings.Cut(rest, ",")
				n, _ := strconv.ParseInt(v, 10, 64)
				us += n
			}
		}
		out = append(out, us)
	}
	return out
}
