package load

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
)

// BenchmarkWatch is `emqtop --watch --json` as shipped, the whole process
// (the scale issue's 1st and 3rd goals for --watch), on the cluster
// BenchmarkLoad seeds, with EMQTOP_LOAD_WRITES per mille of the queues
// written a second (0.1% by default):
//
//   - first-line-s: from the start to the first line (every queue);
//
//   - line-every-ms: the time between the lines after it, which should be
//     the 1 s interval (it stretches when a poll takes longer or the
//     budget asks for it);
//
//   - queues/line: how many queues a line after the first carries (those
//     whose figures changed: each line must say "changed");
//
//   - cpu-ms/line: the process's CPU a line after the first (/proc);
//
//   - rss-MB: the process's peak RSS, its own (through the launcher).
//
//     EMQTOP_LOAD_QUEUES=1000000 EMQTOP_LOAD_ROWS=2 go test ./internal/load -run x -bench Watch -benchtime 1x
func BenchmarkWatch(b *testing.B) {
	cl, c, bin := seededWithBinary(b)
	const lines = 20
	perSecond := writtenPerSecond()
	for b.Loop() {
		stop, wrote := make(chan struct{}), make(chan error, 1)
		go func() { wrote <- write(c, perSecond, stop) }()
		rssFile := filepath.Join(b.TempDir(), "rss")
		cmd := exec.Command(os.Args[0], bin, "--watch", "--json", "--timeout", "10s", "--addr", cl.Nodes[0].Addr())
		cmd.Env = append(os.Environ(), launchEnv+"="+rssFile)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		r := bufio.NewReaderSize(out, 1<<20)
		// the first line holds every queue (222 MB at a million): read
		// through, never held
		head := true
		for {
			chunk, err := r.ReadSlice('\n')
			if head && (len(chunk) == 0 || chunk[0] != '{') {
				b.Fatalf("the first line does not begin a JSON object: %.80q (%v)", chunk, err)
			}
			head = false
			if err == nil {
				break
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				b.Fatalf("the first line: %v", err)
			}
		}
		first := time.Since(start)
		pid := childPid(b, rssFile+".pid")
		cpu0, t0 := procCPU(b, pid), time.Now()
		sent, last := 0, 0
		for i := 0; i < lines; i++ {
			line, err := r.ReadBytes('\n')
			if err != nil {
				b.Fatalf("line %d: %v", i+2, err)
			}
			var doc struct {
				Seq       int               `json:"seq"`
				QueuesAre string            `json:"queues_are"`
				Queues    []json.RawMessage `json:"queues"`
				Read      string            `json:"read"`
				ReadWhy   map[string]int    `json:"read_why"`
				Poll      struct {
					DurationMs float64 `json:"duration_ms"`
				} `json:"poll"`
			}
			if err := json.Unmarshal(line, &doc); err != nil {
				b.Fatalf("line %d: %v", i+2, err)
			}
			if doc.QueuesAre != "changed" || (last > 0 && doc.Seq != last+1) {
				b.Fatalf("line %d: queues are %q, seq %d after %d", i+2, doc.QueuesAre, doc.Seq, last)
			}
			last, sent = doc.Seq, sent+len(doc.Queues)
			b.Logf("line %d at %v: read %s %v in %.0f ms, %d queues", doc.Seq, time.Since(start).Round(time.Millisecond), doc.Read, doc.ReadWhy, doc.Poll.DurationMs, len(doc.Queues))
		}
		el, cpu := time.Since(t0), procCPU(b, pid)-cpu0
		out.Close() // the reader goes: --watch ends
		_ = cmd.Wait()
		close(stop)
		if err := <-wrote; err != nil {
			b.Fatalf("the writer: %v", err)
		}
		rss := launchedRSS(b, rssFile)
		b.ReportMetric(first.Seconds(), "first-line-s")
		b.ReportMetric(float64(el.Milliseconds())/lines, "line-every-ms")
		b.ReportMetric(float64(sent)/lines, "queues/line")
		b.ReportMetric(float64(cpu.Milliseconds())/lines, "cpu-ms/line")
		b.ReportMetric(rss, "rss-MB")
	}
}

// childPid is the pid the launcher wrote, once it has (it writes it right
// after the start, before the child can write a line).
func childPid(b *testing.B, file string) int {
	var pid int
	vtest.Within(10*time.Second, func() bool {
		raw, err := os.ReadFile(file)
		if err == nil {
			pid, err = strconv.Atoi(strings.TrimSpace(string(raw)))
		}
		return err == nil
	})
	if pid == 0 {
		b.Fatalf("the launcher wrote no pid to %s", file)
	}
	return pid
}

// procCPU is a process's user and system time so far (/proc/PID/stat, in
// clock ticks of 10 ms).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// the fields after the command's name, which is in parentheses
	_, rest, ok := strings.Cut(string(raw), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64) // utime, the 14th field
	st, err2 := strconv.ParseInt(f[12], 10, 64) // stime, the 15th
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
