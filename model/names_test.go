package model

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
)

// The index gives each name the next id and finds it again, whatever the
// names' hashes: with the real hash, with every name on one hash (each
// after the first kept aside), and with names of two hashes; and a name
// longer than a block, and names filling blocks, are held whole.
func TestNameIndex(t *testing.T) {
	hashes := map[string]func(maphash.Seed, string) uint64{
		"maphash":  maphash.String,
		"one hash": func(maphash.Seed, string) uint64 { return 7 },
		"two hashes": func(_ maphash.Seed, s string) uint64 {
			return uint64(len(s) % 2)
		},
	}
	names := []string{"", "a", "orders", strings.Repeat("x", nameBlock+5), "orders2", "b"}
	for i := range 3000 {
		names = append(names, fmt.Sprintf("tenant-%d-%s", i, strings.Repeat("y", i%700)))
	}
	for what, hash := range hashes {
		x := NewNameTable()
		x.hash = hash
		for i, n := range names {
			if _, ok := x.ID(n); ok {
				t.Fatalf("%s: %q found before it was added", what, n)
			}
			if id := x.Add(n); id != i {
				t.Fatalf("%s: %q got id %d, want %d", what, n, id, i)
			}
		}
		for i, n := range names {
			if id, ok := x.ID(n); !ok || id != i {
				t.Errorf("%s: %q is %d %v, want %d", what, n, id, ok, i)
			}
			if got := x.Name(i); got != n {
				t.Errorf("%s: id %d holds %.20q, want %.20q", what, i, got, n)
			}
		}
		for _, n := range []string{"c", "orders3", "tenant-3000-"} {
			if _, ok := x.ID(n); ok {
				t.Errorf("%s: %q found, never added", what, n)
			}
		}
		if x.Len() != len(names) {
			t.Errorf("%s: %d names, want %d", what, x.Len(), len(names))
		}
	}
}

// A history whose series share one hash keeps each series apart.
func TestHistoryOneHash(t *testing.T) {
	h := NewHistory()
	h.ids.hash = func(maphash.Seed, string) uint64 { return 1 }
	h.Begin(1000)
	for i := range 50 {
		h.Put(fmt.Sprintf("q-%d", i), [Metrics]int64{int64(i), 1, 0, 0, 9})
	}
	h.Begin(2000)
	h.Gap("q-7")
	for i := range 50 {
		p := h.Past(fmt.Sprintf("q-%d", i))
		if i == 7 {
			if !p.Gapped() {
				t.Errorf("q-7 is not gapped")
			}
			continue
		}
		if !h.Holds(p, [Metrics]int64{int64(i), 1, 0, 0, 9}) {
			t.Errorf("q-%d does not hold its values", i)
		}
	}
	if p := h.Past("q-50"); p.Known() {
		t.Error("q-50 is known, never put")
	}
}

// BenchmarkNameTableID looks up names at random in a table of a million,
// as a poll does for the queues written (the table far larger than the
// caches: each look-up is its misses).
func BenchmarkNameTableID(b *testing.B) {
	const n = 1_000_000
	x := NewNameTable()
	x.Reserve(n)
	names := make([]string, n)
	for i := range names {
		names[i] = x.Name(x.Add(fmt.Sprintf("tenant-%07d", i)))
	}
	probe := make([]string, 1<<18) // many: the table is not in the caches from the last look-ups
	for i := range probe {
		probe[i] = fmt.Sprintf("tenant-%07d", (i*7919)%n) // not the arena's strings: as a reply's are
	}
	b.ResetTimer()
	for i := range b.N {
		if _, ok := x.ID(probe[i%len(probe)]); !ok {
			b.Fatal("a name added is not found")
		}
	}
}
