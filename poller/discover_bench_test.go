package poller

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// BenchmarkDiscovery1M walks a node of about 1,050,000 keys (50,000 queues,
// 1,000,000 job rows) as the dashboard does, one poll a second, and reports
// the server time of the slowest discovery call (from the TIME brackets,
// and SLOWLOG entries over 10 ms as a cross-check), and the latency another
// client sees (PING, sequential) without the dashboard and with it:
//
//	go test ./poller -run x -bench Discovery1M -benchtime 1x -timeout 30m
func BenchmarkDiscovery1M(b *testing.B) {
	cl := testcluster.ForTest(b, testcluster.Options{})
	c := vtest.Client(b, cl)
	sd := vtest.NewSeeder(b, c)
	now := float64(time.Now().UnixMilli())
	for i := 0; i < 50_000; i++ {
		for j := 0; j < 20; j++ {
			sd.Job(fmt.Sprintf("load-%05d", i), keyspace.TypePending, now-float64(j))
		}
	}
	sd.Flush()
	conn, err := testcluster.Dial(cl.Nodes[0].Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	keys, _ := conn.Do("DBSIZE")
	b.Logf("keys on the node: %v", keys)

	pingLatency := func(stop <-chan struct{}, n int) []time.Duration {
		pc, err := testcluster.Dial(cl.Nodes[0].Addr())
		if err != nil {
			b.Fatal(err)
		}
		defer pc.Close()
		var out []time.Duration
		for i := 0; n == 0 || i < n; i++ {
			select {
			case <-stop:
				return out
			default:
			}
			t := time.Now()
			if _, err := pc.String("PING"); err != nil {
				b.Fatal(err)
			}
			out = append(out, time.Since(t))
			time.Sleep(time.Millisecond)
		}
		return out
	}
	pct := func(d []time.Duration, q float64) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[min(len(d)-1, int(q*float64(len(d))))]
	}
	idle := pingLatency(nil, 3000)

	for i := 0; i < b.N; i++ {
		conn.Do("SLOWLOG", "RESET")
		conn.Do("CONFIG", "SET", "slowlog-log-slower-than", "10000")
		conn.Do("CONFIG", "SET", "slowlog-max-len", "1024")
		p := New(c, Options{})
		stop := make(chan struct{})
		var busy []time.Duration
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); busy = pingLatency(stop, 0) }()
		start := time.Now()
		polls := 0
		var st *nodeState
		for {
			s, err := p.Poll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			polls++
			st = p.nodes[s.Nodes[0].Addr]
			if st.passes > 0 {
				break
			}
			time.Sleep(time.Until(start.Add(time.Duration(polls) * time.Second)))
		}
		pass := time.Since(start)
		close(stop)
		wg.Wait()
		// then the steady state: polls between passes send no SCAN
		stop = make(chan struct{})
		var steady []time.Duration
		wg.Add(1)
		go func() { defer wg.Done(); steady = pingLatency(stop, 0) }()
		for j := 0; j < 10; j++ {
			time.Sleep(time.Until(start.Add(time.Duration(polls) * time.Second)))
			p.Poll(context.Background())
			polls++
		}
		close(stop)
		wg.Wait()
		slow, _ := conn.Do("SLOWLOG", "GET", "128")
		scans := 0
		if entries, ok := slow.([]any); ok {
			for _, e := range entries {
				if strings.Contains(fmt.Sprint(e), "SCAN") || strings.Contains(fmt.Sprint(e), "scan") {
					scans++
				}
			}
		}
		b.ReportMetric(float64(st.scanMax.Microseconds())/1000, "max-scan-ms")
		b.ReportMetric(pass.Seconds(), "pass-s")
		b.ReportMetric(float64(scans), "slowlog-scans>10ms")
		b.ReportMetric(float64(pct(idle, 0.99).Microseconds())/1000, "ping-p99-idle-ms")
		b.ReportMetric(float64(pct(busy, 0.99).Microseconds())/1000, "ping-p99-pass-ms")
		b.ReportMetric(float64(pct(steady, 0.99).Microseconds())/1000, "ping-p99-steady-ms")
		b.Logf("pass: %v in %d polls; last COUNT %d; slowest page %v; %d SCAN in SLOWLOG over 10ms", pass.Round(time.Millisecond),
			polls-10, st.scanCount, st.scanMax, scans)
		b.Logf("PING p50 %v / %v / %v, p99 %v / %v / %v (no dashboard / first pass / steady, the dashboard polling 50,000 queues)",
			pct(idle, 0.5), pct(busy, 0.5), pct(steady, 0.5), pct(idle, 0.99), pct(busy, 0.99), pct(steady, 0.99))
		p.Close()
	}
}
