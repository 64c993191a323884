// Package load holds the load figures of emqtop: 50,000 queues and
// 1,000,000 job rows on 3 primaries. Run:
//
//	go test ./internal/load -run x -bench Load -benchtime 1x -timeout 30m
package load

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/localcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

const (
	queues      = 50_000
	rowsPerQ    = 20 // 1,000,000 job rows
	activeEvery = 10 // every tenth queue has 2 active jobs, one expired
)

func seed(b *testing.B, c valkey.Client) {
	now := time.Now().UnixMilli()
	var cmds valkey.Commands
	flush := func() {
		for _, r := range c.DoMulti(context.Background(), cmds...) {
			if err := r.Error(); err != nil {
				b.Fatal(err)
			}
		}
		cmds = cmds[:0]
	}
	for i := 0; i < queues; i++ {
		q := fmt.Sprintf("load-%05d", i)
		k, _ := keyspace.KeysOf(q)
		for j := 0; j < rowsPerQ; j++ {
			id := keyspace.NewJobID()
			row, _ := keyspace.JobKey(q, id)
			cmds = append(cmds, c.B().Hset().Key(row).FieldValue().FieldValue("payload", "{}").FieldValue("attempts", "1").Build())
			score, key := float64(now-int64(j)), k.Pending
			if i%activeEvery == 0 && j < 2 {
				key, score = k.Active, float64(now-5000+int64(j)*600000)
			}
			cmds = append(cmds, c.B().Zadd().Key(key).ScoreMember().ScoreMember(score, id).Build())
		}
		if len(cmds) >= 20000 {
			flush()
		}
	}
	flush()
}

func rssMB() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

type src struct{ *poller.Poller }

func (src) Job(context.Context, string, string) (model.JobDetail, error) {
	return model.JobDetail{}, nil
}

func BenchmarkLoad(b *testing.B) {
	cl := localcluster.ForTest(b, localcluster.Options{Primaries: 3})
	c := vtest.Client(b, cl)
	start := time.Now()
	seed(b, c)
	b.Logf("seeded %d queues, %d rows in %v", queues, queues*rowsPerQ, time.Since(start).Round(time.Second))
	runtime.GC()
	debug.FreeOSMemory()
	for b.Loop() {
		p := poller.New(c, poller.Options{Timeout: 10 * time.Second})
		polls, busy := 0, time.Duration(0)
		for {
			t0 := time.Now()
			s, err := p.Poll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			busy += time.Since(t0)
			polls++
			if s.DiscoveryComplete {
				break
			}
		}
		var durs []time.Duration
		var snap *model.Snapshot
		for i := 0; i < 7; i++ {
			t0 := time.Now()
			s, err := p.Poll(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			durs = append(durs, time.Since(t0))
			snap = s
		}
		if len(snap.Queues) != queues {
			b.Fatalf("%d queues discovered, want %d", len(snap.Queues), queues)
		}
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.ANSI256)
		th, _ := theme.New(r, "dark")
		m, _ := ui.New(src{p}, th, ui.Options{}).Update(sizeMsg())
		m, _ = m.Update(ui.SnapshotMsg(snap))
		var frames []time.Duration
		for i := 0; i < 30; i++ {
			t0 := time.Now()
			_ = m.View()
			frames = append(frames, time.Since(t0))
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		// discovery at the dashboard's pace: one poll a second, or the poll
		// itself when it takes longer
		paced := time.Duration(polls) * time.Second
		if busy > paced {
			paced = busy
		}
		b.ReportMetric(float64(polls), "discovery-polls")
		b.ReportMetric(paced.Seconds(), "discovery-s@1s")
		b.ReportMetric(float64(median(durs).Milliseconds()), "poll-median-ms")
		b.ReportMetric(float64(median(frames).Microseconds())/1000, "frame-ms")
		b.ReportMetric(rssMB(), "rss-MB")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
		b.ReportMetric(float64(snap.Poll.Scripts), "scripts/poll")
		p.Close()
	}
}
