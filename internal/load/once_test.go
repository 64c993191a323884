package load

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

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
//     its polls, the JSON of every queue written to a file; its peak RSS
//     its own, through a small launcher: launchEnv), and once-server-ms,
//     the server time it cost the busiest primary.
//
//     EMQTOP_LOAD_QUEUES=100000 go test ./internal/load -run x -bench Once -benchtime 1x
func BenchmarkOnce(b *testing.B) {
	cl, c, bin := seededWithBinary(b)
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
		rssFile := filepath.Join(b.TempDir(), "rss")
		cmd := exec.Command(os.Args[0], bin, "--once", "--json", "--timeout", "10s", "--addr", addr)
		cmd.Env = append(os.Environ(), launchEnv+"="+rssFile)
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
		rss := launchedRSS(b, rssFile)
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

// launchEnv, when set, makes the test binary a launcher (TestMain): it
// runs its arguments as a command, passing its stdout, stderr and exit
// status through, and writes the command's peak RSS (kB) to the file the
// variable names. The peak of a child started from this process is not its
// own: Go starts children with vfork, so the child's mm until exec is this
// process's, and Linux counts that mm's high-water mark into the child's
// ru_maxrss; after seeding a million queues and polling them here, that
// was this process's 500 MB, not emqtop's. The launcher is small, so what
// its child reports is the child's.
const launchEnv = "EMQTOP_LOAD_LAUNCH_RSS"

func TestMain(m *testing.M) {
	if rssFile := os.Getenv(launchEnv); rssFile != "" {
		os.Exit(launch(os.Args[1:], rssFile))
	}
	os.Exit(m.Run())
}

func launch(args []string, rssFile string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, launchEnv+"=") })
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Start()
	if err == nil { // the child's pid, for a benchmark that samples it as it runs (/proc)
		if werr := os.WriteFile(rssFile+".pid", []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); werr != nil {
			fmt.Fprintln(os.Stderr, "launcher:", werr)
		}
		err = cmd.Wait()
	}
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		return 1
	}
	kb := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // kB on Linux
	if werr := os.WriteFile(rssFile, []byte(strconv.FormatInt(kb, 10)), 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, "launcher:", werr)
		return 1
	}
	return cmd.ProcessState.ExitCode()
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

// seededWithBinary is a cluster of 3 primaries seeded as BenchmarkLoad
// seeds it, a client, and emqtop built into a temporary directory.
func seededWithBinary(b *testing.B) (*testcluster.Cluster, valkey.Client, string) {
	cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
	c := vtest.Client(b, cl)
	seed(b, c)
	bin := filepath.Join(b.TempDir(), "emqtop")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/echomq/emqtop").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return cl, c, bin
}

// launchedRSS is the peak RSS in MB that the launcher wrote to rssFile;
// none, or one that does not parse, fails the benchmark (never 0 MB).
func launchedRSS(b *testing.B, rssFile string) float64 {
	kb, err := os.ReadFile(rssFile)
	if err != nil {
		b.Fatalf("the launcher left no peak RSS: %v", err)
	}
	rss, err := strconv.ParseFloat(strings.TrimSpace(string(kb)), 64)
	if err != nil {
		b.Fatalf("the launcher's peak RSS %q: %v", kb, err)
	}
	return rss / 1024
}
