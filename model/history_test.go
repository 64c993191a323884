package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/gcstat"
)

// refPoll is one poll as the reference keeps it: every value, or a gap.
type refPoll struct {
	at   int64
	vals map[string][Metrics]int64 // a series absent here has a gap
}

// reference computes what History must hold from every poll, the slow way.
func reference(polls []refPoll, name string) Series {
	var s Series
	start := max(0, len(polls)-FineN)
	for _, p := range polls[start:] {
		x := Sample{AtMs: p.at}
		v, ok := p.vals[name]
		for m := range x.V {
			x.V[m] = Gap
			if ok {
				x.V[m] = clamp32(v[m])
			}
		}
		s.Fine = append(s.Fine, x)
	}
	step := CoarseStep.Milliseconds()
	var buckets []Bucket
	for _, p := range polls {
		b := p.at - p.at%step
		if len(buckets) == 0 || buckets[len(buckets)-1].AtMs != b {
			buckets = append(buckets, Bucket{AtMs: b, PendMin: Gap, PendMax: Gap, Pending: Gap, Active: Gap, Expired: Gap, OldestS: Gap})
		}
		v, ok := p.vals[name]
		if !ok {
			continue
		}
		bk := &buckets[len(buckets)-1]
		pv := clamp32(v[MPending])
		if bk.PendMin == Gap || pv < bk.PendMin {
			bk.PendMin = pv
		}
		bk.PendMax = max(bk.PendMax, pv)
		bk.Pending, bk.Active, bk.Expired, bk.OldestS = pv, clamp32(v[MActive]), clamp32(v[MExpired]), clamp32(v[MOldest])
	}
	s.Coarse = buckets[max(0, len(buckets)-CoarseN):]
	return s
}

// The rings, the change logs and their compaction hold to the reference
// over polls at uneven intervals, with gaps, series appearing late,
// series left alone (a carried queue: it keeps its value), series that
// change at every poll, and more polls and minutes than either ring holds.
// The logs' chunks are made small, so that spans move between them and
// chunks are packed and let go all along (logstore.go), and a chunk takes a
// new base once it is ten minutes old.
func TestHistoryHoldsToTheReference(t *testing.T) {
	smallChunks(t, 16)
	was := rebaseAfter
	rebaseAfter = 10 * 60 * 1000
	t.Cleanup(func() { rebaseAfter = was })
	rng := rand.New(rand.NewPCG(1, 2))
	h := NewHistory()
	var polls []refPoll
	at := int64(1_700_000_000_000)
	names := []string{"orders", "fills", "late", "quiet"}
	held := map[string][Metrics]int64{} // what each series holds, absent after a gap
	// a view taken mid-way: what it says must not change with later polls
	// (appends, compactions), since a snapshot on screen holds it
	var (
		viewClock Clock
		view      Past
		viewSaid  Series
	)
	for i := 0; i < 3000; i++ {
		at += 300 + rng.Int64N(3000)
		p := refPoll{at: at, vals: map[string][Metrics]int64{}}
		h.Begin(at)
		for j, n := range names {
			switch {
			case n == "late" && i < 700: // not there yet
				continue
			case rng.IntN(10) == 0: // its node did not answer
				h.Gap(n)
				delete(held, n)
			case n == "quiet" && i > 0 && rng.IntN(50) != 0: // nothing changed: not put
			default:
				v := [Metrics]int64{rng.Int64N(1000), rng.Int64N(50), rng.Int64N(5), rng.Int64N(3), int64(j * i)}
				if rng.IntN(100) == 0 {
					v[MPending] = 1 << 40 // saturates
				}
				held[n] = v
				h.Put(n, v)
			}
			if v, ok := held[n]; ok {
				p.vals[n] = v
			}
		}
		polls = append(polls, p)
		if i == 1500 {
			viewClock, view = h.Clock(), h.Past("orders")
			viewSaid = viewClock.Series(view)
		}
		if i%97 != 0 && i != 2999 {
			continue
		}
		for _, n := range names {
			got, ok := h.Series(n)
			if !ok {
				if n == "late" && i < 700 {
					continue
				}
				t.Fatalf("poll %d: no series %s", i, n)
			}
			want := reference(polls, n) // before "late" appeared, gaps in both
			if !equalSeries(got, want) {
				t.Fatalf("poll %d, %s: fine %d/%d coarse %d/%d samples differ from the reference", i, n,
					len(got.Fine), len(want.Fine), len(got.Coarse), len(want.Coarse))
			}
		}
	}
	if !equalSeries(viewClock.Series(view), viewSaid) {
		t.Error("a view of poll 1500 changed with the polls after it")
	}
	if h.logs.rebased == 0 {
		t.Error("no chunk took a new base: the test proves nothing of it")
	}
	c := h.Clock()
	v := c.view(h.Past("orders"))
	f := c.fine(&v)
	if sp := h.Spark("orders", MPending, 10); len(sp) != 10 || sp[9] != f[FineN-1].V[MPending] {
		t.Errorf("spark %v", sp)
	}
	// a series that changes at every poll keeps what its hour needs, not
	// every change: at most the fine polls and five changes a bucket, and
	// as many again before the next compaction
	if n := h.s[idOf(h, "orders")].n; n > 2*(FineN+5*CoarseN+1) {
		t.Errorf("a series changed at every poll keeps %d changes", n)
	}
}

func equalSeries(a, b Series) bool {
	if len(a.Fine) != len(b.Fine) || len(a.Coarse) != len(b.Coarse) {
		return false
	}
	for i := range a.Fine {
		if a.Fine[i] != b.Fine[i] {
			return false
		}
	}
	for i := range a.Coarse {
		if a.Coarse[i] != b.Coarse[i] {
			return false
		}
	}
	return true
}

// feed records a series at one poll a second for n seconds from value f(i).
func feed(h *History, at *int64, n int, f func(i int) (int64, bool)) {
	for i := 0; i < n; i++ {
		*at += 1000
		h.Begin(*at)
		if v, ok := f(i); ok {
			h.Put("q", [Metrics]int64{MPending: v})
		}
	}
}

func TestTrendOnSyntheticSeries(t *testing.T) {
	start := int64(1_700_000_000_000)
	cases := []struct {
		name   string
		f      func(i int) (int64, bool)
		dir    Direction
		net    float64 // pending net per second
		emptyS float64 // seconds to empty, 0 for none
	}{
		{"steady", func(int) (int64, bool) { return 100, true }, Steady, 0, 0},
		{"linear growth", func(i int) (int64, bool) { return 50 + 2*int64(i), true }, Growing, 2, 0},
		{"drain", func(i int) (int64, bool) { return max(0, 2000-5*int64(i)), true }, Shrinking, -5, 101}, // 505 left at 5/s
		{"noise around a level", func(i int) (int64, bool) { return 100 + int64([]int{0, 3, -2, 4, -3, 1}[i%6]), true }, Steady, 0, 0},
		{"growth with gaps", func(i int) (int64, bool) { return 10 + int64(i), i%4 != 1 }, Growing, 1, 0},
	}
	for _, tc := range cases {
		h, at := NewHistory(), start
		feed(h, &at, 300, tc.f)
		tr := h.Trend("q")
		if !tr.NetOK || tr.Direction != tc.dir || math.Abs(tr.PendingNet-tc.net) > 0.25 {
			t.Errorf("%s: %s, net %.2f/s (ok %v); want %s, %.2f/s", tc.name, tr.Direction, tr.PendingNet, tr.NetOK, tc.dir, tc.net)
		}
		if got := tr.EmptyIn.Seconds(); math.Abs(got-tc.emptyS) > 0.1*tc.emptyS+1 {
			t.Errorf("%s: empty in %v, want %vs", tc.name, tr.EmptyIn, tc.emptyS)
		}
	}
	// a drain that empties: the ETA reaches zero, and then says nothing
	h, at := NewHistory(), start
	feed(h, &at, 400, func(i int) (int64, bool) { return max(0, 1000-5*int64(i)), true })
	if tr := h.Trend("q"); tr.EmptyIn != 0 {
		t.Errorf("an empty queue still has an ETA: %v", tr.EmptyIn)
	}
	// five minutes of drain, then a last minute that rises: the words say
	// the rise, with no drain estimate beside it
	h, at = NewHistory(), start
	feed(h, &at, 360, func(i int) (int64, bool) {
		if i < 270 {
			return 2000 - 5*int64(i), true
		}
		return 650 + 2*int64(i-270), true
	})
	if tr := h.Trend("q"); tr.PendingNet <= 0 || tr.EmptyIn != 0 || strings.Contains(tr.Words(), "empty in") {
		t.Errorf("a rising last minute after a drain: %q (net %.2f, empty in %v)", tr.Words(), tr.PendingNet, tr.EmptyIn)
	}
	// too little past: no direction
	h, at = NewHistory(), start
	feed(h, &at, 5, func(i int) (int64, bool) { return int64(i), true })
	if tr := h.Trend("q"); tr.NetOK || tr.Direction != Unknown {
		t.Errorf("5s of past gave %+v", tr)
	}
}

func TestSinceExpiredZero(t *testing.T) {
	h, at := NewHistory(), int64(1_700_000_000_000)
	put := func(n int, exp int64) {
		for i := 0; i < n; i++ {
			at += 1000
			h.Begin(at)
			h.Put("q", [Metrics]int64{MExpired: exp})
		}
	}
	put(30, 0)
	if tr := h.Trend("q"); tr.SinceExpiredZero != 0 {
		t.Errorf("expired zero: %v", tr.SinceExpiredZero)
	}
	put(20, 3)
	if tr := h.Trend("q"); tr.SinceExpiredZero != 20*time.Second || tr.AtLeast {
		t.Errorf("20s after the last zero: %v (at least %v)", tr.SinceExpiredZero, tr.AtLeast)
	}
	h = NewHistory()
	put(10, 2)
	if tr := h.Trend("q"); tr.SinceExpiredZero != 9*time.Second || !tr.AtLeast {
		t.Errorf("never zero: %v (at least %v)", tr.SinceExpiredZero, tr.AtLeast)
	}
}

// BenchmarkHistory records an hour of polls (one a second) of 100,000 and
// 1,000,000 queues, 0.1% of them changed at each poll (the others are not
// put: they keep their value), and reports the memory the history holds
// after the hour (after a GC), per series, and the time of one poll's
// recording, and the CPU of a collection with the history live (what it
// costs the collector to mark, with the names):
//
//	go test ./model -run x -bench History -benchtime 3600x
func BenchmarkHistory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("queues=%d", n), func(b *testing.B) {
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("tenant-%07d", i)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			h := NewHistory()
			h.Reserve(n)
			at := int64(1_700_000_000_000)
			h.Begin(at)
			for i, q := range names {
				h.Put(q, [Metrics]int64{int64(i % 100), 1, 0, 0, at / 1000})
			}
			rng := rand.New(rand.NewPCG(1, 2))
			changed := max(1, n/1000)
			b.ResetTimer()
			for b.Loop() {
				at += 1000
				h.Begin(at)
				for range changed {
					i := rng.IntN(n)
					h.Put(names[i], [Metrics]int64{rng.Int64N(100), rng.Int64N(3), 0, 0, at / 1000})
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-held")
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/series")
			b.ReportMetric(float64(gcstat.Collection().Microseconds())/1000, "gc-cpu-ms/collection")
			runtime.KeepAlive(h)
			runtime.KeepAlive(names)
		})
	}
}

// A slow, steady growth (a job every 10 s, as the demo's unserved tenants)
// is growing; a level that jitters by a job or two is steady.
func TestSlowGrowthAndJitter(t *testing.T) {
	h, at := NewHistory(), int64(1_700_000_000_000)
	feed(h, &at, 70, func(i int) (int64, bool) { return 1 + int64(i/10), true })
	if tr := h.Trend("q"); tr.Direction != Growing {
		t.Errorf("a job every 10s: %s (%+.3f/s)", tr.Direction, tr.PendingNet)
	}
	h = NewHistory()
	feed(h, &at, 70, func(i int) (int64, bool) { return int64([]int{0, 2, 1, 0, 2, 0, 1}[i%7]), true })
	if tr := h.Trend("q"); tr.Direction != Steady {
		t.Errorf("jitter between 0 and 2: %s (%+.3f/s)", tr.Direction, tr.PendingNet)
	}
}

// Reserve makes room without changing what is held, and adding the series
// it made room for copies no table.
func TestHistoryReserve(t *testing.T) {
	h := NewHistory()
	h.Begin(1000)
	h.Put("a", [Metrics]int64{1, 2, 3, 4, 5})
	h.Reserve(1001)
	before := &h.s[:1][0]
	for i := 0; i < 1000; i++ {
		h.Put(fmt.Sprintf("q-%d", i), [Metrics]int64{int64(i)})
	}
	if &h.s[:1][0] != before {
		t.Error("adding reserved series copied the table")
	}
	if s, _ := h.Series("a"); len(s.Fine) != 1 || s.Fine[0].V != [Metrics]int32{1, 2, 3, 4, 5} {
		t.Errorf("a: %+v", s.Fine)
	}
	if h.Len() != 1001 {
		t.Errorf("%d series", h.Len())
	}
}

func idOf(h *History, name string) int {
	id, _ := h.ids.ID(name)
	return id
}

// The series' first records share a chunk, a span of one record each: a
// series' next change never writes into its neighbour's record, and a view
// of the first poll says what it said after every series changed.
func TestFirstRecordsShareAChunk(t *testing.T) {
	h := NewHistory()
	const n = 300
	name := func(i int) string { return fmt.Sprintf("q-%03d", i) }
	h.Begin(1000)
	for i := range n {
		h.Put(name(i), [Metrics]int64{int64(i), 1})
	}
	first, views := h.Clock(), make([]Past, n)
	for i := range n {
		views[i] = h.Past(name(i))
	}
	for i := range n {
		if views[i].sp.chunk != views[0].sp.chunk || h.logs.room(views[i].sp) != 1 {
			t.Fatal("the first records are not one chunk's spans of one record each")
		}
	}
	h.Begin(2000)
	for i := range n {
		if i%3 != 0 { // a third never change again
			h.Put(name(i), [Metrics]int64{int64(i), 2})
		}
	}
	for i := range n {
		if s := first.Series(views[i]); len(s.Fine) == 0 || s.Fine[len(s.Fine)-1].V != [Metrics]int32{int32(i), 1} {
			t.Fatalf("%s: the first poll's view says %+v after the second", name(i), s.Fine)
		}
		want := [Metrics]int32{int32(i), 2}
		if i%3 == 0 {
			want = [Metrics]int32{int32(i), 1}
		}
		if s, _ := h.Series(name(i)); len(s.Fine) == 0 || s.Fine[len(s.Fine)-1].V != want {
			t.Fatalf("%s: says %+v, not %v", name(i), s.Fine, want)
		}
	}
}

// Put and Gap are the series' Past after them, as Past says it.
func TestPutAndGapAreThePast(t *testing.T) {
	h := NewHistory()
	same := func(a, b Past) bool { return a == b }
	for i := range 40 {
		h.Begin(int64(1000 * (i + 1)))
		if p := h.Put("a", [Metrics]int64{int64(i % 7), 1, int64(i % 2)}); !same(p, h.Past("a")) || !p.Known() {
			t.Fatalf("poll %d: Put is not the Past", i)
		}
		if p := h.Gap("b"); p.Known() || !same(p, h.Past("b")) {
			t.Fatalf("poll %d: a Gap of a series never put is not the zero Past", i)
		}
		if i%5 == 0 {
			if p := h.Gap("a"); !same(p, h.Past("a")) || !p.Gapped() {
				t.Fatalf("poll %d: Gap is not the Past", i)
			}
		}
	}
}
