package serve

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/model"
)

// syntheticHub is a hub whose latest snapshot holds n queues, each with
// jobs, and no poller: what a scrape costs, apart from any poll.
func syntheticHub(n int) *Hub {
	var b model.QueueListBuilder
	for i := range n {
		b.Add(&model.Queue{Name: fmt.Sprintf("tenant-%07d", i), Node: model.RefOf("10.0.0.1:7000"), Pending: int64(i % 97),
			Active: int64(i % 5), Expired: int64(i % 1013 / 1000), OldestPendingAgeMs: -1})
	}
	h := NewHub(nil, nil, time.Second)
	h.latest = &model.Snapshot{TakenAt: time.Now(), Queues: b.List()}
	return h
}

// BenchmarkScrape scrapes the metrics of a snapshot of EMQTOP_SCRAPE_QUEUES
// queues (100,000 by default) and reports the bytes served, the series,
// and what one scrape allocates and its time; EMQTOP_SCRAPE_MAX is
// --metrics-queues (DefaultMetricsQueues by default; 2000000 for every
// queue, as before it was):
//
//	EMQTOP_SCRAPE_QUEUES=1000000 go test ./internal/serve -run x -bench Scrape -benchtime 3x
func BenchmarkScrape(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("EMQTOP_SCRAPE_QUEUES")); err == nil && v > 0 {
		n = v
	}
	max := DefaultMetricsQueues
	if v, err := strconv.Atoi(os.Getenv("EMQTOP_SCRAPE_MAX")); err == nil {
		max = v
	}
	srv := httptest.NewServer(MetricsHandler(syntheticHub(n), func() int { return 0 }, max))
	defer srv.Close()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	size := 0
	for b.Loop() {
		resp, err := srv.Client().Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("scrape: %v %d", err, resp.StatusCode)
		}
		size = len(body)
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(size)/(1<<20), "MB-served")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/scrape")
	b.ReportMetric(float64(ms1.HeapSys)/(1<<20), "heap-sys-MB")
}

// Past --metrics-queues, the queues that matter most have series of their
// own: a failed one first, then the most expired, then the most pending;
// every scrape says how many queues there are and how many have series;
// at 0, none has.
func TestMetricsQueuesCapped(t *testing.T) {
	h := syntheticHub(300) // pending i%97, active i%5, no expired
	qs := h.latest.Queues
	qs.At(7).Expired = 3
	qs.At(250).Expired = 1
	qs.At(9).Err, qs.At(9).Unread = "NOPERM", true
	scrape := func(max int) string {
		srv := httptest.NewServer(MetricsHandler(h, func() int { return 0 }, max))
		defer srv.Close()
		return scrapeOf(t, srv)
	}
	out := scrape(5)
	for _, want := range []string{"emqtop_queues 300", "emqtop_queues_exported 5",
		`emqtop_queue_read_error{queue="tenant-0000009"} 1`, `emqtop_queue_expired_jobs{queue="tenant-0000007"} 3`,
		`emqtop_queue_expired_jobs{queue="tenant-0000250"} 1`,
		// then the most pending (96: places 96 and 193), and none else
		`emqtop_queue_jobs{queue="tenant-0000096",state="pending"} 96`, `emqtop_queue_jobs{queue="tenant-0000193",state="pending"} 96`} {
		if !strings.Contains(out, want) {
			t.Errorf("capped at 5, the metrics lack %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "emqtop_queue_expired_jobs{"); n != 4 {
		t.Errorf("%d queues with an expired series, want the 4 counted (the failed one has none)", n)
	}
	out = scrape(0)
	if !strings.Contains(out, "emqtop_queues_exported 0") || strings.Contains(out, "emqtop_queue_") {
		t.Errorf("at 0, a queue's series:\n%s", out)
	}
	out = scrape(DefaultMetricsQueues)
	if !strings.Contains(out, "emqtop_queues_exported 300") || strings.Count(out, "emqtop_queue_expired_jobs{") != 299 {
		t.Errorf("under the cap, not every queue:\n%.2000s", out)
	}
}

// scrapeOf is one scrape of a metrics server's body ("" when it fails:
// the error is the test's; scrapes may run in goroutines of their own).
func scrapeOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return string(b)
}
