package commands

import "testing"

// GOGC follows the live heap: between two collections the heap may grow
// by at least an eighth of what is live (no collection after collection
// at a million queues), by at least 16 MB or as much as is live when that
// is less, and never by more than what is live (memory bounded by it).
func TestGCPercentFollowsTheLiveHeap(t *testing.T) {
	for _, least := range []uint64{minHeadroom, onceHeadroom} {
		for _, live := range []uint64{1, 4 << 20, 16 << 20, 40 << 20, 128 << 20, 600 << 20, 4 << 30} {
			p := gcPercent(live, least)
			room := live * uint64(p) / 100
			if room < live/8 || room < min(least, live) || p > 100 || p < 1 {
				t.Errorf("live %d MB, at least %d MB: GOGC %d, %d MB of room", live>>20, least>>20, p, room>>20)
			}
		}
	}
	if p := gcPercent(40<<20, onceHeadroom); p > 25 {
		t.Errorf("--once, live 40 MB: GOGC %d, the heap would grow to %d MB", p, 40*(100+p)/100)
	}
	if p := gcPercent(600<<20, minHeadroom); p > 25 {
		t.Errorf("live 600 MB: GOGC %d, the heap would grow to %d MB", p, 600*(100+p)/100)
	}
}
