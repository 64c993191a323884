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

// A chunk's base moves on once it is rebaseAfter old (pack) and what every
// Past says stays: a Clock made before reads the chunks and bases it was
// given, the newest reads the copies, a series put once at the start (its
// record now far before its chunk's base) still says its value, and one
// put at every poll its last minute.
func TestRebaseKeepsWhatPastsSay(t *testing.T) {
	was := rebaseAfter
	rebaseAfter = 10 * 60 * 1000 // ten minutes
	t.Cleanup(func() { rebaseAfter = was })
	h := NewHistory()
	const start = int64(1_700_000_000_000)
	h.Begin(start)
	quiet := h.Put("quiet", [Metrics]int64{7, 1})
	var mid Clock
	var midPast Past
	busyAt := func(c Clock, i int) { // busy's last minute, at poll i
		t.Helper()
		s := c.Series(h.Past("busy"))
		for k, x := range s.Fine {
			j := int64(i - (FineN - 1) + k)
			if x.AtMs != start+j*1000 || x.V != [Metrics]int32{int32(j % 50), 2} {
				t.Fatalf("poll %d: busy, sample %d: %+v, want %d at %d", i, k, x, j%50, start+j*1000)
			}
		}
	}
	for i := 1; i <= 3*3600; i++ { // three hours of a poll a second
		before := h.logs.rebased
		h.Begin(start + int64(i)*1000)
		h.Put("busy", [Metrics]int64{int64(i % 50), 2})
		if h.logs.rebased != before && i > FineN {
			busyAt(h.Clock(), i) // its last minute was written before the move
		}
		if i == 3600 {
			mid, midPast = h.Clock(), h.Past("busy")
		}
	}
	if h.logs.rebased < 5 {
		t.Fatalf("%d chunks took a new base in three hours, want one in ten minutes at least", h.logs.rebased)
	}
	c := h.Clock()
	if s := c.Series(quiet); len(s.Fine) != FineN || s.Fine[FineN-1].V != [Metrics]int32{7, 1} || s.Fine[0].V != [Metrics]int32{7, 1} {
		t.Fatalf("the series put at the start reads %+v", s.Fine)
	}
	if quiet.LastChangeMs() != start {
		t.Errorf("its last change at %d, want %d", quiet.LastChangeMs(), start)
	}
	busyAt(c, 3*3600)
	m := mid.Series(midPast)
	if last := m.Fine[FineN-1]; last.AtMs != start+3600*1000 || last.V != [Metrics]int32{3600 % 50, 2} {
		t.Errorf("the view of the first hour now says %+v", last)
	}
	if len(m.Coarse) == 0 || m.Coarse[len(m.Coarse)-1].Pending != 3600%50 {
		t.Errorf("the view of the first hour's buckets now say %+v", m.Coarse)
	}
}

// held is how many records the chunks hold, cut or not, and how many of
// them are in live spans.
func (l *logStore) held() (all, live int) {
	for _, c := range l.chunks {
		if c != nil {
			all += len(c.recs)
			live += int(c.live)
		}
	}
	return all, live
}
