// Package load holds the load figures of emqtop: 50,000 queues and
// 1,000,000 job rows on 3 primaries (EMQTOP_LOAD_QUEUES sets the queues,
// EMQTOP_LOAD_ROWS the rows a queue, EMQTOP_LOAD_POLLS the polls measured,
// EMQTOP_LOAD_WRITES the per mille of the queues written a second,
// EMQTOP_LOAD_NEW the queues made a second while they are,
// EMQTOP_LOAD_REDISCOVER how often a discovery pass may start,
// EMQTOP_LOAD_SWEEP how often every slot is read whatever tracking says;
// EMQTOP_LOAD_CPUPROFILE, EMQTOP_LOAD_HEAPPROFILE and EMQTOP_LOAD_TRACE
// write a profile or a trace of the measured polls),
// and the correctness at scale that fits in CI (agree_test.go: 200,000
// queues, change-driven against full). Run the figures with:
//
//	go test ./internal/load -run x -bench Load -benchtime 1x -timeout 30m
package load

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/commands"
	"github.com/echomq/emqtop/internal/gcstat"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

func seed(b *testing.B, c valkey.Client) {
	now := float64(time.Now().UnixMilli())
	sd := vtest.NewSeeder(b, c)
	for i := 0; i < queues; i++ {
		q := fmt.Sprintf("load-%07d", i)
		for j := 0; j < rowsPerQ; j++ {
			if i%activeEvery == 0 && j < 2 {
				sd.Job(q, keyspace.TypeActive, now-5000+float64(j)*600000)
			} else {
				sd.Job(q, keyspace.TypePending, now-float64(j))
			}
		}
	}
	sd.Flush()
}

// write enqueues a job to perSecond queues picked at random a second, and
// to newPerSecond queues never written before, in batchesPerSecond
// batches, until stop.
func write(c valkey.Client, perSecond int, stop <-chan struct{}) error {
	tick := time.NewTicker(time.Second / time.Duration(batchesPerSecond))
	defer tick.Stop()
	r := rand.New(rand.NewPCG(1, 2))
	made, ticks := 0, 0
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		ticks++
		var names []string
		for k := perSecond * (ticks - 1) / batchesPerSecond; k < perSecond*ticks/batchesPerSecond; k++ {
			names = append(names, fmt.Sprintf("load-%07d", r.IntN(queues)))
		}
		for ; made < newPerSecond*ticks/batchesPerSecond; made++ {
			names = append(names, fmt.Sprintf("load-new-%07d", made))
		}
		var cmds valkey.Commands
		for _, q := range names {
			more, err := vtest.JobCommands(c, q, keyspace.TypePending, float64(time.Now().UnixMilli()))
			if err != nil {
				return err
			}
			cmds = append(cmds, more...)
		}
		for _, res := range c.DoMulti(context.Background(), cmds...) {
			if err := res.Error(); err != nil {
				return err
			}
		}
	}
}

type src struct{ *poller.Poller }

func (src) Job(context.Context, string, string) (model.JobDetail, error) {
	return model.JobDetail{}, nil
}

// BenchmarkLoad seeds the cluster, then measures the dashboard in a child
// process of its own (this test binary, run again), so that the resident
// size is the dashboard's and not the seeder's.
func BenchmarkLoad(b *testing.B) {
	cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
	c := vtest.Client(b, cl)
	start := time.Now()
	seed(b, c)
	b.Logf("seeded %d queues, %d rows in %v", queues, queues*rowsPerQ, time.Since(start).Round(time.Second))
	perSecond := writtenPerSecond()
	b.Logf("writing to %d queues a second (%g per mille of them) while the dashboard runs", perSecond, writesPerMille)
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadChild$", "-test.v")
		cmd.Env = append(os.Environ(), "EMQTOP_LOAD_ADDR="+cl.Nodes[0].Addr())
		stop, wrote := make(chan struct{}), make(chan error, 1)
		go func() { wrote <- write(c, perSecond, stop) }()
		out, err := cmd.CombinedOutput()
		close(stop)
		if werr := <-wrote; werr != nil {
			b.Fatalf("the writer: %v", werr)
		}
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var r result
		for _, line := range strings.Split(string(out), "\n") {
			if j, ok := strings.CutPrefix(strings.TrimSpace(line), "RESULT "); ok {
				if err := json.Unmarshal([]byte(j), &r); err != nil {
					b.Fatal(err)
				}
			}
		}
		// the seeded queues, and of the new ones (EMQTOP_LOAD_NEW) no more
		// than were made while it ran
		if most := queues + newPerSecond*int(time.Since(start).Seconds()+1); r.Queues < queues || r.Queues > most {
			b.Fatalf("the child saw %d queues, want %d to %d\n%s", r.Queues, queues, most, out)
		}
		for _, m := range r.Memory { // first: without -test.v the log is cut after ten lines
			b.Logf("%s", m)
		}
		for i, read := range r.Reads {
			b.Logf("poll %d after discovery: %s", i+1, read)
		}
		b.ReportMetric(float64(r.Polls), "discovery-polls")
		b.ReportMetric(r.PacedS, "discovery-s@1s")
		b.ReportMetric(r.PollMs, "poll-median-ms")
		b.ReportMetric(r.PollCPUMs, "poll-cpu-ms")
		b.ReportMetric(r.AllocMB, "poll-alloc-MB")
		b.ReportMetric(r.GCs, "GCs/poll")
		b.ReportMetric(r.GCPollMs, "gc-cpu-ms/poll")
		b.ReportMetric(r.GCMs, "gc-cpu-ms/collection")
		b.Logf("%d polls after discovery before the steady state", r.Warm)
		b.ReportMetric(r.FrameMs, "frame-ms")
		b.ReportMetric(r.RSSMB, "rss-MB")
		b.ReportMetric(r.PeakMB, "rss-peak-MB")
		b.ReportMetric(r.HeapMB, "heap-MB")
		b.ReportMetric(r.NamesMB, "names-MB")                                        // the names' arena, off the heap
		b.ReportMetric((r.HeapMB+r.NamesMB)*(1<<20)/float64(queues), "heap-B/queue") // the state and the history so far, the names' arena in
		b.ReportMetric(float64(r.Scripts), "scripts/poll")
		b.ReportMetric(r.ReadQueues, "read/poll")
	}
}

type result struct {
	Queues, Polls, Scripts                                    int
	Warm                                                      int // polls after discovery before the measured ones
	PacedS, PollMs, PollCPUMs, FrameMs, RSSMB, PeakMB, HeapMB float64
	NamesMB                                                   float64  // the names' arena (model.NameBytesMapped)
	AllocMB, GCs                                              float64  // a measured poll
	GCPollMs, GCMs                                            float64  // the collector's CPU a poll, and a whole collection's
	Reads                                                     []string // what each measured poll read, and why
	ReadQueues                                                float64  // queues read a measured poll (the written and the sweep's), on average
	Memory                                                    []string // the memory every 600 measured polls
}

// TestLoadChild is the dashboard side of BenchmarkLoad; it runs only when
// the benchmark starts it.
func TestLoadChild(t *testing.T) {
	addr := os.Getenv("EMQTOP_LOAD_ADDR")
	if addr == "" {
		return // not started by BenchmarkLoad: nothing to measure
	}
	commands.LimitMemory() // as the dashboard does
	// one timeout for the connection and the poller, as --timeout gives
	cfg := poller.Config{Addrs: []string{addr}, ReadOnly: true, Timeout: 10 * time.Second}
	c, err := poller.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// the trackers on clients of their own, read at the poll, as the
	// dashboard's (its root options)
	opt := poller.Options{Timeout: 10 * time.Second, Dial: cfg.Dialer(), DialHeld: cfg.HeldDialer()}
	// EMQTOP_LOAD_REDISCOVER: how often a pass may start ("1h": none after
	// the first; a pass's cost to the client is the difference)
	if d, err := time.ParseDuration(os.Getenv("EMQTOP_LOAD_REDISCOVER")); err == nil && d > 0 {
		opt.RediscoverEvery, opt.RediscoverTracked, opt.DiscoveryShare = d, d, 1e-12
	}
	// EMQTOP_LOAD_SWEEP: the sweep's period ("24h": next to none; the
	// sweep's cost to the client is the difference)
	if d, err := time.ParseDuration(os.Getenv("EMQTOP_LOAD_SWEEP")); err == nil && d > 0 {
		opt.Sweep = d
	}
	p := poller.New(c, opt)
	defer p.Close()
	polls, busy := 0, time.Duration(0)
	for {
		t0 := time.Now()
		s, err := p.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		busy += time.Since(t0)
		polls++
		if s.DiscoveryComplete {
			break
		}
	}
	// the first polls after discovery read what the trackers could not
	// vouch for while they started, and the sweep's backlog; the steady
	// state is measured once a poll reads under 1% of the queues
	warm := 0
	var last *model.Snapshot
	for ; warm < 60; warm++ {
		s, err := p.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if last = s; s.Poll.Carried > s.Queues.Len()*99/100 {
			break
		}
	}
	// the dashboard: each measured poll's snapshot goes to the screen, and
	// a frame is drawn, as the dashboard does a poll
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI256)
	th, _ := theme.New(r, "dark")
	m, _ := ui.New(src{p}, th, ui.Options{}).Update(sizeMsg())
	m, _ = m.Update(ui.SnapshotMsg(last))
	_ = m.View()
	var durs []time.Duration
	var snap *model.Snapshot
	var reads []string
	if f := os.Getenv("EMQTOP_LOAD_CPUPROFILE"); f != "" { // where the polls' time goes
		if w, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(w)
			defer w.Close()
		}
	}
	if f := os.Getenv("EMQTOP_LOAD_TRACE"); f != "" { // what wakes the process between polls (go tool trace)
		if w, err := os.Create(f); err == nil {
			trace.Start(w)
			defer w.Close()
		}
	}
	// the measured polls at the dashboard's pace, a second apart (the
	// sweep's share of a poll is a second's), each put on the screen, and
	// the process's whole CPU over them (the garbage collector's and the
	// screen's included) a poll
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	if f := os.Getenv("EMQTOP_LOAD_HEAPPROFILE"); f != "" { // the base: what the measured polls allocate is the difference (go tool pprof -base)
		runtime.GC() // a heap profile is as of the last collection: without one here, the base missed the first whole poll's allocations
		if w, err := os.Create(f + ".base"); err == nil {
			pprof.WriteHeapProfile(w)
			w.Close()
		}
	}
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	gc0 := gcstat.CPU()
	cpu0 := cpuTime()
	readQueues := 0
	var memory []string
	for i := 0; i < measured; i++ {
		<-tick.C
		t0 := time.Now()
		s, err := p.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
		snap = s
		readQueues += s.Queues.Len() - s.Poll.Carried
		m, _ = m.Update(ui.SnapshotMsg(s))
		_ = m.View()
		full := map[string]string{} // why a primary was read in full
		for _, n := range s.Nodes {
			if n.Full != "" || n.Err != "" {
				full[n.Addr] = n.Full + " " + n.Err
			}
		}
		// (the queues stale are counted on the last poll, after the
		// measure: a walk of every queue here was a tenth of it)
		reads = append(reads, fmt.Sprintf("%s %v carried %d in %v; in full: %v", s.Poll.Read, s.Poll.Why, s.Poll.Carried, s.Poll.Duration.Round(time.Millisecond), full))
		if (i+1)%600 == 0 { // the memory as the history grows (an hour's run: every 10 minutes)
			var mi runtime.MemStats
			runtime.ReadMemStats(&mi)
			memory = append(memory, fmt.Sprintf("after %d polls: RSS %.0f MB (peak %.0f), heap %.0f MB in use", i+1, rssMB(), statusMB("VmHWM:"), float64(mi.HeapInuse)/(1<<20)))
		}
	}
	pprof.StopCPUProfile()
	trace.Stop()
	pollCPU := (cpuTime() - cpu0) / time.Duration(measured)
	gcPoll := (gcstat.CPU() - gc0) / time.Duration(measured)
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	stale, why := 0, ""
	for _, q := range snap.Queues.All() {
		if q.Stale || q.Err != "" {
			stale, why = stale+1, q.Err
		}
	}
	reads = append(reads, fmt.Sprintf("the last: stale or failed %d (%s)", stale, why))
	var frames []time.Duration
	for i := 0; i < 30; i++ {
		t0 := time.Now()
		_ = m.View()
		frames = append(frames, time.Since(t0))
	}
	// one collection's cost: the whole live heap marked, CPU on every core;
	// the first forced one also ends the cycle under way and sweeps what
	// it left (twice the next ones: 267-293 ms against 129-158 at a
	// million), so it is the second that is counted
	gcstat.Collection()
	mark := gcstat.Collection()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if f := os.Getenv("EMQTOP_LOAD_HEAPPROFILE"); f != "" { // where the heap goes
		runtime.GC() // as of now (mark ran one already)
		if w, err := os.Create(f); err == nil {
			pprof.WriteHeapProfile(w)
			w.Close()
		}
	}
	// discovery at the dashboard's pace: one poll a second, or the poll
	// itself when it takes longer
	paced := max(time.Duration(polls)*time.Second, busy)
	res := result{Queues: snap.Queues.Len(), Polls: polls, Scripts: snap.Poll.Scripts, PacedS: paced.Seconds(),
		PollMs: float64(median(durs).Microseconds()) / 1000, PollCPUMs: float64(pollCPU.Microseconds()) / 1000,
		GCPollMs: float64(gcPoll.Microseconds()) / 1000, GCMs: float64(mark.Microseconds()) / 1000,
		AllocMB: float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(measured) / (1 << 20), GCs: float64(ms1.NumGC-ms0.NumGC) / float64(measured), Warm: warm, FrameMs: float64(median(frames).Microseconds()) / 1000,
		RSSMB: rssMB(), PeakMB: statusMB("VmHWM:"), HeapMB: float64(ms.HeapInuse) / (1 << 20), Reads: reads, Memory: memory, ReadQueues: float64(readQueues) / float64(measured),
		NamesMB: float64(model.NameBytesMapped()) / (1 << 20)}
	j, _ := json.Marshal(res)
	fmt.Println("RESULT " + string(j))
}
