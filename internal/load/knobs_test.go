package load

import (
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The knobs of the load figures, each from the environment, and the
// process's own measures (resident size, CPU).

// activeEvery: every tenth queue has 2 active jobs, one expired
const activeEvery = 10

// rowsPerQ is how many job rows each queue has [20: 1,000,000 at 50,000
// queues]; EMQTOP_LOAD_ROWS sets it (4 for a million queues: the issue's
// synthetic queues of a few jobs).
var rowsPerQ = func() int {
	if n, err := strconv.Atoi(os.Getenv("EMQTOP_LOAD_ROWS")); err == nil && n >= 2 {
		return n
	}
	return 20
}()

// queues is how many the cluster is seeded with [50,000].
var queues = func() int {
	if n, err := strconv.Atoi(os.Getenv("EMQTOP_LOAD_QUEUES")); err == nil && n > 0 {
		return n
	}
	return 50_000
}()

// writesPerMille is the share of the queues written to a second while the
// dashboard runs [1: 0.1%, the 1,000 a second of a million];
// EMQTOP_LOAD_WRITES sets it, 0 for none, a fraction for fewer (0.3: 300
// a second of a million, so that a poll reads 1,000 with the sweep's 700).
var writesPerMille = func() float64 {
	if n, err := strconv.ParseFloat(os.Getenv("EMQTOP_LOAD_WRITES"), 64); err == nil && n >= 0 {
		return n
	}
	return 1
}()

// writtenPerSecond is how many of the seeded queues are written a second.
func writtenPerSecond() int { return int(float64(queues) * writesPerMille / 1000) }

// batchesPerSecond is how many batches the writer's writes of a second
// come in [10]; EMQTOP_LOAD_BATCHES sets it (1000: spread as a busy
// service's are, each node then telling its trackers of a write at most
// every millisecond, not ten times a second).
var batchesPerSecond = func() int {
	if n, err := strconv.Atoi(os.Getenv("EMQTOP_LOAD_BATCHES")); err == nil && n > 0 {
		return n
	}
	return 10
}()

// newPerSecond is how many queues the writer makes a second beside its
// writes to the seeded ones [0]; EMQTOP_LOAD_NEW sets it: queues come (a
// tenant's first job) as the dashboard runs, and discovery finds them.
var newPerSecond = func() int {
	if n, err := strconv.Atoi(os.Getenv("EMQTOP_LOAD_NEW")); err == nil && n >= 0 {
		return n
	}
	return 0
}()

func rssMB() float64 { return statusMB("VmRSS:") }

// statusMB is a size /proc/self/status gives (VmRSS:, VmHWM: the peak).
func statusMB(field string) float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// measured is how many polls after discovery are measured, a second apart
// [30]; EMQTOP_LOAD_POLLS sets it (more steady the collector's share: at a
// million queues 30 polls hold two or three collections, ±4 ms a poll).
var measured = func() int {
	if n, err := strconv.Atoi(os.Getenv("EMQTOP_LOAD_POLLS")); err == nil && n > 0 {
		return n
	}
	return 30
}()

// cpuTime is the CPU this process has used, user and system, every thread.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}
