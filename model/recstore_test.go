package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkRecs recounts, from the series, the logs each slab holds, and finds
// the store's counts the same.
func checkRecs(t *testing.T, h *History) {
	t.Helper()
	count := make([]int32, len(h.recs.live))
	held := 0
	for i, s := range h.s {
		if s.slab == 0 {
			continue
		}
		if k, room := recClass(cap(s.log)); k < 0 || room != cap(s.log) || uint8(k) != h.recs.class[s.slab] {
			t.Fatalf("series %d: a log of room %d in a slab of class %d", i, cap(s.log), h.recs.class[s.slab])
		}
		count[s.slab]++
		held++
	}
	for id := 1; id < len(count); id++ {
		if count[id] != h.recs.live[id] {
			t.Fatalf("slab %d: %d logs held by series, the store counts %d", id, count[id], h.recs.live[id])
		}
	}
	if held != h.recs.held {
		t.Fatalf("%d logs held by series, the store counts %d", held, h.recs.held)
	}
}

// logSlabs is each series' slab now.
func logSlabs(h *History) []uint32 {
	old := make([]uint32, len(h.s))
	for i, s := range h.s {
		old[i] = s.slab
	}
	return old
}

// movedSince is how many series' logs are in another slab than in old.
func movedSince(h *History, old []uint32) int {
	moved := 0
	for i, s := range h.s {
		if s.slab != old[i] {
			moved++
		}
	}
	return moved
}

// A history written at random for many polls keeps its logs in slabs whose
// counts stay right; a walk moves the series of sparse slabs to new ones
// (none left sparse but a current one), and every series' values, and
// every past taken before a move, read the same after it.
func TestLogsInSlabs(t *testing.T) {
	const n = 20_000
	h := NewHistory()
	rng := rand.New(rand.NewPCG(3, 4))
	want := make([][Metrics]int64, n)
	name := func(i int) string { return fmt.Sprintf("q-%d", i) }
	h.Begin(1_000)
	for i := range n {
		h.Put(name(i), want[i])
	}
	inSlabs := 0
	for p := range 400 {
		h.Begin(int64(2+p) * 1_000)
		for range 400 {
			i := rng.IntN(n / 4) // a quarter of the series written, often
			if p > 200 {
				i = rng.IntN(n) // then all of them, now and then
			}
			want[i][MPending] = int64(rng.IntN(1000))
			h.Put(name(i), want[i])
		}
		if p%50 == 0 {
			checkRecs(t, h)
		}
	}
	checkRecs(t, h)
	for _, s := range h.s {
		if s.slab != 0 {
			inSlabs++
		}
	}
	if inSlabs < n/8 {
		t.Fatalf("%d of %d series' logs in slabs after 400 polls of 400 writes", inSlabs, n)
	}
	// every series' past as it stands, then a walk forced: it moves some,
	// and the pasts taken before read the same as the history after
	before := make([]Past, n)
	for i := range n {
		before[i] = h.Past(name(i))
	}
	old := logSlabs(h)
	h.recs.let = h.recs.held // a walk is due
	h.Begin(500_000)
	checkRecs(t, h)
	moved := movedSince(h, old)
	if moved == 0 {
		t.Fatal("a walk of slabs written at random moved no series")
	}
	for id := 1; id < len(h.recs.live); id++ {
		k := h.recs.class[id]
		if n := h.recs.live[id]; n > 0 && int(n)*3 < recSlab/(4<<k)*2 && uint32(id) != h.recs.curID[k] && !h.recs.again {
			t.Errorf("slab %d of class %d left sparse after a walk: %d logs", id, k, n)
		}
	}
	for i := range n {
		now := h.Past(name(i))
		if !now.Holds(want[i]) {
			t.Fatalf("%s does not hold its values after %d moves", name(i), moved)
		}
		if len(now.log) != len(before[i].log) {
			t.Fatalf("%s: %d records after the walk, %d before", name(i), len(now.log), len(before[i].log))
		}
		for k := range now.log {
			if now.log[k] != before[i].log[k] {
				t.Fatalf("%s: record %d reads %v after the walk, %v before", name(i), k, now.log[k], before[i].log[k])
			}
		}
	}
	t.Logf("%d series' logs in slabs, %d moved by the walk, %d slabs made", inSlabs, moved, len(h.recs.live)-1)
}

// A walk moves at most its budget (but a slab's whole), and leaves the
// rest for the next poll's walk.
func TestLogWalkBudget(t *testing.T) {
	const n = 20_000
	h := NewHistory()
	rng := rand.New(rand.NewPCG(5, 6))
	h.Begin(1_000)
	for i := range n {
		h.Put(fmt.Sprintf("q-%d", i), [Metrics]int64{})
	}
	for p := range 200 {
		h.Begin(int64(2+p) * 1_000)
		for range 500 {
			i := rng.IntN(n)
			h.Put(fmt.Sprintf("q-%d", i), [Metrics]int64{int64(p)})
		}
	}
	h.recs.budget = 100
	h.recs.let = h.recs.held
	old := logSlabs(h)
	h.Begin(900_000)
	checkRecs(t, h)
	moved := movedSince(h, old)
	if !h.recs.again {
		t.Fatalf("a walk of budget 100 left nothing for the next (%d moved)", moved)
	}
	if most := 100 + recSlab/4; moved > most {
		t.Errorf("a walk of budget 100 moved %d logs", moved)
	}
	h.Begin(901_000) // the next walk goes on, due or not
	checkRecs(t, h)
}

// BenchmarkLogWalk: a walk of a million series' logs when it is due, after
// an hour of 1,000 written a second (what a poll that walks pays once in a
// long while).
//
//	go test ./model -run x -bench LogWalk -benchtime 5x
func BenchmarkLogWalk(b *testing.B) {
	const n = 1_000_000
	h := NewHistory()
	h.Reserve(n)
	h.Begin(1_000)
	for i := range n {
		h.Put(fmt.Sprintf("tenant-%07d", i), [Metrics]int64{})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	p := 0
	poll := func() {
		p++
		h.Begin(int64(1+p) * 1_000)
		for range 1_000 {
			h.Put(fmt.Sprintf("tenant-%07d", rng.IntN(n)), [Metrics]int64{int64(p)})
		}
	}
	for range 3600 {
		poll()
	}
	moved := 0
	for b.Loop() {
		b.StopTimer()
		old := logSlabs(h)
		h.recs.let = h.recs.held
		b.StartTimer()
		h.compactLogs()
		b.StopTimer()
		moved += movedSince(h, old)
		poll()
		b.StartTimer()
	}
	b.ReportMetric(float64(moved)/float64(b.N), "moved/walk")
}
