package commands

import "testing"

// The soft memory limit follows the live heap: never under it (the GC
// would run without pause), a tenth and 16 MB above, never under the floor.
func TestMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, MemoryLimit},
		{40 << 20, MemoryLimit},
		{400 << 20, 440<<20 + 16<<20},
	} {
		if got := memoryLimit(c.live); got != c.want || got <= int64(c.live) {
			t.Errorf("memoryLimit(%d MB) = %d MB, want %d MB", c.live>>20, got>>20, c.want>>20)
		}
	}
}
