package commands

import "testing"

// GOGC follows the live heap: between two collections the heap may grow
// by at least an eighth of what is live (no collection after collection
// at a million queues), by at least 16 MB or as much as is live when that
// is less, and never by more than what is live (memory bounded by it).
func TestGCPercentFollowsTheLiveHeap(t *testing.T) {
	for _, live := range []uint64{1, 4 << 20, 16 << 20, 40 << 20, 128 << 20, 600 << 20, 4 << 30} {
		p := gcPercent(live)
		room := live * uint64(p) / 100
		if room < live/8 || room < min(minHeadroom, live) || p > 100 || p < 1 {
			t.Errorf("live %d MB: GOGC %d, %d MB of room", live>>20, p, room>>20)
		}
	}
	if p := gcPercent(600 << 20); p > 25 {
		t.Errorf("live 600 MB: GOGC %d, the heap would grow to %d MB", p, 600*(100+p)/100)
	}
}
