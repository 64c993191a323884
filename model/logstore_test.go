package model

import (
	"fmt"
	"testing"
)

// smallChunks makes the history's chunks n records long for one test.
func smallChunks(t *testing.T, n int) {
	was := chunkRecs
	chunkRecs = n
	t.Cleanup(func() { chunkRecs = was })
}

// A carried queue's Past names a span, not memory: after the chunk it lies
// in was packed (most of its spans moved out as their series changed), the
// newest Clock reads it where the packing put it, and says what the
// series' own newest Past says; the Clock of the first poll still reads
// the chunk it was given. What the chunks hold stays within twice what is
// live, plus the chunk being filled.
func TestCarriedPastAfterPacking(t *testing.T) {
	smallChunks(t, 32)
	h := NewHistory()
	const n = 400
	name := func(i int) string { return fmt.Sprintf("q-%03d", i) }
	carried := func(i int) bool { return i%10 == 0 } // never read again: its Past from the first poll stays on
	h.Begin(1000)
	pasts := make([]Past, n)
	for i := range n {
		pasts[i] = h.Put(name(i), [Metrics]int64{int64(i), 1})
	}
	first := h.Clock()
	firstRecs := map[uint32]*rec{}
	for i := range n {
		if carried(i) {
			ch := pasts[i].sp.chunk
			firstRecs[ch] = &first.logs[ch].recs[0]
		}
	}
	for poll := range 200 {
		h.Begin(int64(2000 + 1000*poll))
		for i := range n {
			if !carried(i) {
				h.Put(name(i), [Metrics]int64{int64(i + poll), 2})
			}
		}
		if all, live := h.logs.held(); all > 2*live+2*chunkRecs {
			t.Fatalf("poll %d: the chunks hold %d records for %d live", poll, all, live)
		}
	}
	c := h.Clock()
	packed := 0
	for i := range n {
		if !carried(i) {
			continue
		}
		p := pasts[i]
		if p != h.Past(name(i)) {
			t.Fatalf("%s: its Past moved though it was never put again", name(i))
		}
		got, want := c.Series(p), first.Series(p)
		if len(got.Fine) == 0 || len(want.Fine) == 0 {
			t.Fatalf("%s: no past read (%d, %d samples)", name(i), len(got.Fine), len(want.Fine))
		}
		if v := got.Fine[len(got.Fine)-1].V; v != [Metrics]int32{int32(i), 1} {
			t.Fatalf("%s: the newest Clock reads %v", name(i), v)
		}
		if v := want.Fine[len(want.Fine)-1].V; v != [Metrics]int32{int32(i), 1} {
			t.Fatalf("%s: the first Clock reads %v", name(i), v)
		}
		if &c.logs[p.sp.chunk].recs[0] != firstRecs[p.sp.chunk] {
			packed++
		}
	}
	if packed == 0 {
		t.Fatal("no carried series' chunk was packed: the test proves nothing")
	}
}
