package model

import (
	"hash/maphash"
	"slices"
	"testing"
)

// countLookups makes h count the names its table hashes (a look-up or an
// add each).
func countLookups(h *History) *int {
	n := new(int)
	h.ids.hash = func(seed maphash.Seed, name string) uint64 {
		*n++
		return maphash.String(seed, name)
	}
	return n
}

func pendingOf(t *testing.T, h *History, name string) []int32 {
	t.Helper()
	s, ok := h.Series(name)
	if !ok {
		return nil
	}
	var out []int32
	for _, f := range s.Fine {
		if f.AtMs != 0 {
			out = append(out, f.V[MPending])
		}
	}
	return out
}

// A new reading that carries its last one's series (CarryPast) is put
// there with no look-up of its name, to the same effect as Put by name;
// a queue whose series is another name's, or another history's, is put
// under its own name all the same.
func TestPutQueueFindsItsSeriesWithoutALookUp(t *testing.T) {
	h := NewHistory()
	looks := countLookups(h)
	v := func(p int64) [Metrics]int64 { return [Metrics]int64{p, 0, 0, 0, 0} }

	h.Begin(1000)
	a, b := &Queue{Name: "a"}, &Queue{Name: "b"}
	h.PutQueue(a, v(1))
	h.PutQueue(b, v(7))
	if *looks != 4 { // a look-up and an add each
		t.Fatalf("two new queues: %d names hashed, want 4", *looks)
	}
	h.Begin(2000)
	a2 := &Queue{Name: "a"}
	a2.CarryPast(a)
	*looks = 0
	h.PutQueue(a2, v(2))
	if *looks != 0 {
		t.Errorf("a reading that carries its series: %d names hashed, want none", *looks)
	}
	if got := pendingOf(t, h, "a"); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("a's past is %v, want [1 2]", got)
	}
	if a2.Past.LastChangeMs() != 2000 || a.Past.LastChangeMs() != 1000 {
		t.Errorf("the new reading's past ends at %d, the last one's at %d: want 2000 and 1000", a2.Past.LastChangeMs(), a.Past.LastChangeMs())
	}

	// a queue carrying another name's series is put under its own
	wrong := &Queue{Name: "b"}
	wrong.CarryPast(a2)
	h.PutQueue(wrong, v(8))
	if got := pendingOf(t, h, "a"); !slices.Equal(got, []int32{1, 2}) {
		t.Errorf("b's reading carrying a's series wrote a: %v", got)
	}
	if got := pendingOf(t, h, "b"); !slices.Equal(got, []int32{7, 8}) {
		t.Errorf("b's past is %v, want [7 8]", got)
	}

	// another history, where the id a carries is another name's
	h2 := NewHistory()
	h2.Begin(2000)
	h2.PutQueue(&Queue{Name: "x"}, v(5))
	h2.PutQueue(&Queue{Name: "a"}, v(3))
	from1 := &Queue{Name: "a"}
	from1.CarryPast(a2)
	h2.Begin(3000)
	h2.PutQueue(from1, v(4))
	if got, x := pendingOf(t, h2, "a"), pendingOf(t, h2, "x"); !slices.Equal(got, []int32{3, 4}) || !slices.Equal(x, []int32{5, 5}) {
		t.Errorf("a queue from another history: a %v (want [3 4]), x %v (want [5 5])", got, x)
	}

	// a gap, the same way; a name never put stays unknown
	h.Begin(3000)
	a3 := &Queue{Name: "a"}
	a3.CarryPast(a2)
	*looks = 0
	h.GapQueue(a3)
	if *looks != 0 || !a3.Past.Gapped() || !h.Past("a").Gapped() {
		t.Errorf("a gap of a carried series: %d names hashed, gapped %v", *looks, a3.Past.Gapped())
	}
	never := &Queue{Name: "never"}
	h.GapQueue(never)
	if never.Past.Known() || h.Past("never").Known() {
		t.Errorf("a gap of a queue never put made it known")
	}
}
