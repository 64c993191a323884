package poller

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

// seedQueues writes n queues straight into the cluster, pipelined: 3
// pending jobs, 2 active (one of them expired) with their rows. The names
// are zero-padded to n's width, so that names[i] is the i-th queue of a
// snapshot (sorted by name) at every size.
func seedQueues(b *testing.B, c valkey.Client, n int) []string {
	now := float64(time.Now().UnixMilli())
	sd := vtest.NewSeeder(b, c)
	width := max(5, len(strconv.Itoa(n-1)))
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		q := fmt.Sprintf("bench-%0*d", width, i)
		names = append(names, q)
		for j := 0; j < 3; j++ {
			sd.Job(q, keyspace.TypePending, now-float64(j)*1000)
		}
		sd.Job(q, keyspace.TypeActive, now-5000)
		sd.Job(q, keyspace.TypeActive, now+600000)
	}
	sd.Flush()
	return names
}

// nodeStats is a node's INFO commandstats: calls and usec by command.
func nodeStats(b *testing.B, addr string) map[string][2]int64 {
	conn, err := testcluster.Dial(addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	s, err := conn.String("INFO", "commandstats")
	if err != nil {
		b.Fatal(err)
	}
	return commandStats(s)
}

// serverUsec sums, over the primaries, the server's own time spent in
// EVALSHA_RO calls and in every command, from INFO commandstats.
func serverUsec(b *testing.B, cl *testcluster.Cluster, primaries int) (script, all, calls int64) {
	for _, n := range cl.Nodes[:primaries] {
		for name, st := range nodeStats(b, n.Addr()) {
			all += st[1]
			if name == "evalsha_ro" {
				script += st[1]
				calls += st[0]
			}
		}
	}
	return
}

// cpuMs is the user+system CPU the cluster's processes have used, in ms.
func cpuMs(b *testing.B, cl *testcluster.Cluster) float64 {
	var ticks int64
	for _, n := range cl.Nodes {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n.PID()))
		if err != nil {
			b.Fatal(err)
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + s
	}
	return float64(ticks) * 10 // USER_HZ is 100 on Linux
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

// BenchmarkPoll: the poller against the naive one (one queue after
// another, each command its own round trip, as asynq's inspector does), on
// a 3-primary cluster with 1,000 and 10,000 queues. Reported: median poll,
// scripts per poll, round trips per node, server µs per script and per poll.
func BenchmarkPoll(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
		c := vtest.Client(b, cl)
		names := seedQueues(b, c, n)
		for _, mode := range []string{"dashboard", "detail-all"} {
			b.Run(fmt.Sprintf("queues=%d/%s", n, mode), func(b *testing.B) {
				p := New(c, Options{Pinned: names, DetailAll: mode == "detail-all", Timeout: 10 * time.Second, Full: true})
				defer p.Close()
				p.SetDetail(names[0])
				if _, err := p.Poll(context.Background()); err != nil { // load scripts, read topology
					b.Fatal(err)
				}
				var durs []time.Duration
				s0, a0, c0 := serverUsec(b, cl, 3)
				cpu0 := cpuMs(b, cl)
				var scripts, trips int
				b.ResetTimer()
				for b.Loop() {
					start := time.Now()
					s, err := p.Poll(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					durs = append(durs, time.Since(start))
					scripts, trips = s.Poll.Scripts, s.Poll.RoundTrips
					if s.Queues.Len() != n || s.Queues.At(0).Pending != 3 || s.Queues.At(0).Expired != 1 {
						b.Fatalf("wrong snapshot: %d queues, %+v", s.Queues.Len(), s.Queues.At(0))
					}
				}
				b.StopTimer()
				s1, a1, c1 := serverUsec(b, cl, 3)
				polls := int64(len(durs))
				b.ReportMetric((cpuMs(b, cl)-cpu0)/float64(polls), "server-cpu-ms/poll")
				b.ReportMetric(float64(median(durs).Microseconds())/1000, "median-ms")
				b.ReportMetric(float64(scripts), "scripts/poll")
				b.ReportMetric(float64(trips)/3, "trips/node")
				b.ReportMetric(float64(s1-s0)/float64(max(1, c1-c0)), "server-µs/script")
				b.ReportMetric(float64(a1-a0)/float64(polls)/1000, "server-ms/poll")
			})
		}
		b.Run(fmt.Sprintf("queues=%d/naive", n), func(b *testing.B) {
			var durs []time.Duration
			_, a0, _ := serverUsec(b, cl, 3)
			for b.Loop() {
				start := time.Now()
				naivePoll(b, c, names)
				durs = append(durs, time.Since(start))
			}
			b.StopTimer()
			_, a1, _ := serverUsec(b, cl, 3)
			b.ReportMetric(float64(median(durs).Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(6*n)/3, "trips/node")
			b.ReportMetric(float64(a1-a0)/float64(len(durs))/1000, "server-ms/poll")
		})
	}
}

// naivePoll reads what the snapshot reads, the way asynq's inspector does:
// queue after queue, every command its own round trip.
func naivePoll(b *testing.B, c valkey.Client, names []string) {
	ctx := context.Background()
	for _, q := range names {
		k, _ := keyspace.KeysOf(q)
		tm, err := c.Do(ctx, c.B().Time().Build()).AsStrSlice()
		if err != nil {
			b.Fatal(err)
		}
		sec, _ := strconv.ParseInt(tm[0], 10, 64)
		usec, _ := strconv.ParseInt(tm[1], 10, 64)
		now := strconv.FormatInt(sec*1000+usec/1000, 10)
		for _, key := range []string{k.Pending, k.Active, k.Schedule} {
			if err := c.Do(ctx, c.B().Zcard().Key(key).Build()).Error(); err != nil {
				b.Fatal(err)
			}
		}
		c.Do(ctx, c.B().Zrange().Key(k.Pending).Min("0").Max("0").Withscores().Build())
		c.Do(ctx, c.B().Zcount().Key(k.Active).Min("-inf").Max(now).Build())
	}
}
