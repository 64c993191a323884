package commands

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"
	gossh "golang.org/x/crypto/ssh"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
)

// BenchmarkServeSessions serves 200 queues on 3 primaries to 1, 10 and 30
// SSH sessions (real clients, each with a pty, reading and answering like
// a terminal) from a real emqtop serve process, and reports what it costs:
// the cluster's scripts a second and CPU (INFO commandstats and INFO cpu,
// over the nodes), the server process's CPU and memory (/proc), and each
// per session. All sessions show the same default selection.
//
//	go test ./internal/commands -run x -bench ServeSessions -benchtime 1x
func BenchmarkServeSessions(b *testing.B) {
	cl, c := vtest.Cluster(b, 3)
	for i := 0; i < 200; i++ {
		for j := 0; j < 3; j++ {
			if _, err := echomq.Enqueue(bg, c, fmt.Sprintf("tenant-%03d", i), []byte("x")); err != nil {
				b.Fatal(err)
			}
		}
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "emqtop")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		b.Fatalf("build: %v %s", err, out)
	}
	key, line := sshKey(b, "bench")
	os.WriteFile(filepath.Join(dir, "readers"), []byte(line), 0o600)
	for _, n := range []int{1, 10, 30} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchSessions(b, cl, bin, dir, key, n)
			}
		})
	}
	_ = c
}

func benchSessions(b *testing.B, cl *testcluster.Cluster, bin, dir string, key gossh.Signer, n int) {
	cmd := exec.Command(bin, "serve", "--addr", cl.Nodes[0].Addr(), "--ssh", "127.0.0.1:0", "--readers",
		filepath.Join(dir, "readers"), "--host-key", filepath.Join(dir, "host_key"), "--max-sessions", "64")
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	port := ""
	sc := bufio.NewScanner(out)
	for port == "" && sc.Scan() {
		if m := regexp.MustCompile(`ssh -p (\d+) `).FindStringSubmatch(sc.Text()); m != nil {
			port = m[1]
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	for i := 0; i < n; i++ {
		t, err := dialTerm(b, "127.0.0.1:"+port, key, true)
		if err != nil {
			b.Fatal(err)
		}
		t.waitFor(b, "LIVE")
	}
	time.Sleep(3 * time.Second) // every session on its steady frames
	scripts0, cpu0 := clusterLoad(b, cl)
	proc0 := procCPU(b, cmd.Process.Pid)
	start := time.Now()
	time.Sleep(10 * time.Second)
	secs := time.Since(start).Seconds()
	scripts1, cpu1 := clusterLoad(b, cl)
	proc1 := procCPU(b, cmd.Process.Pid)
	rss := procRSS(b, cmd.Process.Pid)
	serveCPU := 100 * (proc1 - proc0) / secs
	b.ReportMetric(float64(scripts1-scripts0)/secs, "cluster_scripts/s")
	b.ReportMetric(100*(cpu1-cpu0)/secs, "cluster_cpu_%")
	b.ReportMetric(serveCPU, "serve_cpu_%")
	b.ReportMetric(serveCPU/float64(n), "serve_cpu_%/session")
	b.ReportMetric(rss/(1<<20), "serve_rss_MB")
}

// clusterLoad sums the read-only script calls and the CPU seconds of every node.
func clusterLoad(b testing.TB, cl *testcluster.Cluster) (scripts int64, cpu float64) {
	for _, node := range cl.Nodes {
		c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{node.Addr()}, ForceSingleClient: true, DisableCache: true})
		if err != nil {
			b.Fatal(err)
		}
		stats, _ := c.Do(bg, c.B().Info().Section("commandstats").Build()).ToString()
		cpuInfo, _ := c.Do(bg, c.B().Info().Section("cpu").Build()).ToString()
		c.Close()
		for _, l := range strings.Split(stats, "\r\n") {
			if strings.HasPrefix(l, "cmdstat_evalsha_ro:") || strings.HasPrefix(l, "cmdstat_eval_ro:") {
				scripts += field(l, "calls=")
			}
		}
		for _, l := range strings.Split(cpuInfo, "\r\n") {
			if strings.HasPrefix(l, "used_cpu_sys:") || strings.HasPrefix(l, "used_cpu_user:") {
				f, _ := strconv.ParseFloat(l[strings.IndexByte(l, ':')+1:], 64)
				cpu += f
			}
		}
	}
	return
}

func field(l, name string) int64 {
	i := strings.Index(l, name)
	if i < 0 {
		return 0
	}
	rest := l[i+len(name):]
	if j := strings.IndexByte(rest, ','); j >= 0 {
		rest = rest[:j]
	}
	n, _ := strconv.ParseInt(rest, 10, 64)
	return n
}

// procCPU is the process's user+system CPU seconds (/proc/PID/stat).
func procCPU(b testing.TB, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // clock ticks (USER_HZ = 100)
}

// procRSS is the process's resident memory in bytes.
func procRSS(b testing.TB, pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
			return kb * 1024
		}
	}
	return 0
}
