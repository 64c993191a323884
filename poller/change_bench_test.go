package poller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
)

// pollerStats is, per primary, the commandstats (calls, usec) of the
// poller's own commands (EVALSHA_RO, TIME, PING, CLIENT, SCRIPT): the
// writer's EVALSHA calls are not counted.
func pollerStats(b *testing.B, cl *testcluster.Cluster, primaries int) []map[string][2]int64 {
	out := make([]map[string][2]int64, primaries)
	for i, n := range cl.Nodes[:primaries] {
		out[i] = map[string][2]int64{}
		for name, st := range nodeStats(b, n.Addr()) {
			if name == "evalsha_ro" || name == "time" || name == "ping" ||
				strings.HasPrefix(name, "client|") || strings.HasPrefix(name, "script|") {
				out[i][name] = st
			}
		}
	}
	return out
}

// usecBy is each primary's server time in the poller's commands between
// two pollerStats, and which primary spent the most.
func usecBy(before, after []map[string][2]int64) (usec []int64, busiest int) {
	usec = make([]int64, len(after))
	for i := range after {
		for name, st := range after[i] {
			usec[i] += st[1] - before[i][name][1]
		}
		if usec[i] > usec[busiest] {
			busiest = i
		}
	}
	return usec, busiest
}

// logBusiest says where a primary's time went: each command's calls and
// microseconds a second between two pollerStats.
func logBusiest(b *testing.B, before, after map[string][2]int64, secs float64) {
	var parts []string
	for name, st := range after {
		calls, usec := st[0]-before[name][0], st[1]-before[name][1]
		if calls > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f calls/s %.0f us/s (%.1f us a call)", name, float64(calls)/secs, float64(usec)/secs, float64(usec)/float64(calls)))
		}
	}
	slices.Sort(parts)
	b.Logf("the busiest primary: %s", strings.Join(parts, "; "))
}

// serverCPUms is the CPU the primaries have used, from INFO cpu (its
// used_cpu_sys and used_cpu_user, to the microsecond: /proc's ticks of 10ms
// are too coarse for the few ms a second change-driven polling costs).
func serverCPUms(b *testing.B, cl *testcluster.Cluster, primaries int) float64 {
	total := 0.0
	for _, n := range cl.Nodes[:primaries] {
		s, err := testcluster.Info(n.Addr(), "cpu")
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(s, "\n") {
			line = strings.TrimSpace(line)
			for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
				if v, ok := strings.CutPrefix(line, f); ok {
					x, _ := strconv.ParseFloat(v, 64)
					total += x * 1000
				}
			}
		}
	}
	return total
}

// BenchmarkChangeDriven: change-driven against full polling in the same
// run, on 3 primaries, with 1% of the queues written each second (an
// enqueue, through EchoMQ's script) and a poll a second, one queue read in
// detail. Each mode polls for EMQTOP_BENCH_SECONDS [10] after it settled.
// Reported per mode: the poller's server time per second over the cluster
// and on its busiest node (% of one core), the cluster processes' CPU per
// second (the writer's included: writes-only is the writer alone, so the
// difference is what polling costs the cluster, tracking included: its
// invalidations are in no command's time), scripts per poll, the
// median poll, the heap after the run; and it fails if any write was not
// in the first poll that began after it was acknowledged.
// EMQTOP_BENCH_QUEUES sets the sizes [10000], EMQTOP_BENCH_WRITTEN the
// percent of the queues written a second [1].
func BenchmarkChangeDriven(b *testing.B) {
	sizes := []int{10000}
	if v := os.Getenv("EMQTOP_BENCH_QUEUES"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	secs := 10
	if v, err := strconv.Atoi(os.Getenv("EMQTOP_BENCH_SECONDS")); err == nil && v > 0 {
		secs = v
	}
	written := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("EMQTOP_BENCH_WRITTEN"), 64); err == nil && v > 0 {
		written = v
	}
	for _, n := range sizes {
		cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
		c := vtest.Client(b, cl)
		names := seedQueues(b, c, n)
		// acked[i]: enqueues into queue i acknowledged so far
		acked := make([]atomic.Int64, n)
		// gate: each mode starts from the same data (flushed and seeded
		// again, the writer held), so that the sets' growth favours none
		var gate sync.RWMutex
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // written% of the queues a second, evenly
			defer wg.Done()
			r := rand.New(rand.NewPCG(1, 2))
			every := time.Duration(float64(time.Second) / max(1, float64(n)*written/100))
			next := time.Now()
			for ctx.Err() == nil {
				i := r.IntN(n)
				gate.RLock()
				if _, err := echomq.Enqueue(ctx, c, names[i], []byte("x")); err == nil {
					acked[i].Add(1)
				}
				gate.RUnlock()
				next = next.Add(every)
				if late := time.Since(next); late > time.Second {
					// held at the gate (a flush and seeding, seconds at a
					// million): the writes not made then are not made up
					// in a burst, which measured 2,000 a second as 1,000
					next = next.Add(late)
				}
				time.Sleep(time.Until(next))
			}
		}()
		for mi, mode := range []string{"writes-only", "full", "changes", "writes-only-again"} {
			if mi > 0 {
				gate.Lock()
				for _, nc := range c.Nodes() {
					if err := nc.Do(ctx, nc.B().Flushall().Build()).Error(); err != nil {
						b.Fatal(err)
					}
				}
				seedQueues(b, c, n)
				for i := range acked {
					acked[i].Store(0)
				}
				gate.Unlock()
			}
			b.Run(fmt.Sprintf("queues=%d/written=%g%%/%s", n, written, mode), func(b *testing.B) {
				for b.Loop() {
					if strings.HasPrefix(mode, "writes-only") { // the cluster's CPU without a poller, before and after
						cpu0, t0 := serverCPUms(b, cl, 3), time.Now()
						time.Sleep(time.Duration(secs) * time.Second)
						b.ReportMetric((serverCPUms(b, cl, 3)-cpu0)/time.Since(t0).Seconds(), "cluster-cpu-ms/s")
						continue
					}
					changeRun(b, cl, names, acked, mode == "full", secs)
				}
			})
		}
		stop()
		wg.Wait()
	}
}

func changeRun(b *testing.B, cl *testcluster.Cluster, names []string, acked []atomic.Int64, full bool, secs int) {
	p := New(vtest.Client(b, cl), Options{Pinned: names, Full: full, Timeout: 10 * time.Second})
	defer p.Close()
	p.SetDetail(names[0])
	// settle: the trackers run and have been read once
	for i := 0; i < 30; i++ {
		s, err := p.Poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if full || (s.Poll.Read == "changes" && s.Poll.Why["unproven"] == 0 && s.Poll.Why["full"] == 0) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	st0, cpu0, t0 := pollerStats(b, cl, 3), serverCPUms(b, cl, 3), time.Now()
	w0 := sumAcked(acked)
	var durs []time.Duration
	scripts, missed := 0, 0
	why := map[string]int{} // batches read, by reason, over the run
	var sweep time.Duration // the sweep's period as the budget left it
	before := make([]int64, len(names))
	next := time.Now()
	for i := 0; i < secs; i++ {
		next = next.Add(time.Second)
		time.Sleep(time.Until(next))
		for j := range acked {
			before[j] = acked[j].Load()
		}
		start := time.Now()
		s, err := p.Poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
		scripts += s.Poll.Scripts
		for r, n := range s.Poll.Why {
			why[r] += n
		}
		sweep = s.Poll.SweepEvery
		if s.Queues.Len() != len(names) {
			b.Fatalf("a poll read %d queues of %d", s.Queues.Len(), len(names))
		}
		for j := range s.Queues.Len() {
			q := s.Queues.At(j)
			if q.Name != names[j] {
				b.Fatalf("reading %d is of queue %q, not %q", j, q.Name, names[j])
			}
			if q.Pending < 3+before[j] { // seeded with 3
				missed++
			}
		}
	}
	el := time.Since(t0).Seconds()
	st1, cpu1 := pollerStats(b, cl, 3), serverCPUms(b, cl, 3)
	usec, busiest := usecBy(st0, st1)
	var sum int64
	for _, u := range usec {
		sum += u
	}
	most := usec[busiest]
	logBusiest(b, st0[busiest], st1[busiest], el)
	b.Logf("batches read by reason: %v over %d polls", why, secs)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if missed > 0 {
		b.Fatalf("%d queue readings missed a write acknowledged before their poll began", missed)
	}
	b.ReportMetric(float64(sum)/el/1000, "server-ms/s")
	b.ReportMetric(float64(most)/el/1e6*100, "busiest-node-%core")
	b.ReportMetric((cpu1-cpu0)/el, "cluster-cpu-ms/s")
	b.ReportMetric(float64(scripts)/float64(secs), "scripts/poll")
	b.ReportMetric(float64(sumAcked(acked)-w0)/el, "writes/s")
	b.ReportMetric(float64(median(durs).Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	if !full {
		b.ReportMetric(sweep.Seconds(), "sweep-every-s")
	}
}

// sumAcked is how many enqueues were acknowledged so far, over the queues.
func sumAcked(acked []atomic.Int64) int64 {
	var n int64
	for i := range acked {
		n += acked[i].Load()
	}
	return n
}
