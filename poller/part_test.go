package poller

import (
	"fmt"
	"testing"
)

// A poll's parts are cut from shared arrays: no two cuts overlap, a cut
// keeps what was written to it when the arrays fill and new ones are
// made, and the next poll's reset lets go of the names.
func TestPartArenaCuts(t *testing.T) {
	var a partArena
	b := batch{queues: []string{"a", "b", "c", "d"}, idx: []int{10, 11, 12, 13}, detail: []bool{false, true, false, true}}
	var parts []batch
	for i := range 100 { // past the first arrays' 64 places
		ks := []int{i % 4}
		if i%3 == 0 {
			ks = []int{0, 2, 3}
		}
		parts = append(parts, b.part(ks, &a))
	}
	for i, p := range parts {
		ks := []int{i % 4}
		if i%3 == 0 {
			ks = []int{0, 2, 3}
		}
		for j, k := range ks {
			if p.queues[j] != b.queues[k] || p.idx[j] != b.idx[k] || p.detail[j] != b.detail[k] {
				t.Fatalf("part %d, place %d: %q %d %v, want %q %d %v", i, j, p.queues[j], p.idx[j], p.detail[j], b.queues[k], b.idx[k], b.detail[k])
			}
		}
		if cap(p.queues) != len(ks) || cap(p.idx) != len(ks) || cap(p.detail) != len(ks) {
			t.Fatalf("part %d can grow into its neighbour's places", i)
		}
	}
	held := a.queues[:cap(a.queues)]
	a.reset()
	for i, q := range held {
		if q != "" {
			t.Fatalf("place %d still holds %q after the reset", i, q)
		}
	}
	if p := b.part([]int{1}, &a); fmt.Sprint(p.queues, p.idx, p.detail) != "[b] [11] [true]" {
		t.Errorf("a cut after the reset: %v %v %v", p.queues, p.idx, p.detail)
	}
}
