package commands

import (
	"runtime"
	"testing"
	"time"
)

// GOGC follows the live heap: between two collections the heap may grow
// by at least its share of what is live (no collection after collection
// at a million queues), by at least its least bytes or as much as is live
// when that is less, and never by more than what is live (memory bounded
// by it). The dashboard's share is a quarter, --once's a fifth.
func TestGCPercentFollowsTheLiveHeap(t *testing.T) {
	for _, room := range []gcRoom{dashboardRoom, onceRoom} {
		for _, live := range []uint64{1, 4 << 20, 16 << 20, 40 << 20, 128 << 20, 600 << 20, 4 << 30} {
			p := gcPercent(live, room)
			grow := live * uint64(p) / 100
			if grow < live*uint64(room.share)/100 || grow < min(room.least, live) || p > 100 || p < 1 {
				t.Errorf("live %d MB, room %+v: GOGC %d, %d MB of room", live>>20, room, p, grow>>20)
			}
		}
	}
	if p := gcPercent(40<<20, onceRoom); p > 25 {
		t.Errorf("--once, live 40 MB: GOGC %d, the heap would grow to %d MB", p, 40*(100+p)/100)
	}
	if p := gcPercent(600<<20, dashboardRoom); p != 25 {
		t.Errorf("the dashboard, live 600 MB: GOGC %d, the heap would grow to %d MB, want a quarter more", p, 600*(100+p)/100)
	}
	if p := gcPercent(600<<20, onceRoom); p > 20 {
		t.Errorf("--once, live 600 MB: GOGC %d, the heap would grow to %d MB, want a fifth more", p, 600*(100+p)/100)
	}
}

// The GC tuner runs after each collection, with no ticker: afterEachGC
// calls its function after collections, once each, in order, and no more
// once it said stop.
func TestAfterEachGC(t *testing.T) {
	calls := make(chan int, 16)
	n := 0
	afterEachGC(func() bool {
		n++
		calls <- n
		return n < 3
	})
	// collect until the call comes (the next is armed once a call returns,
	// so a collection may come before it and not count)
	next := func(what string, from chan int) int {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			runtime.GC()
			select {
			case got := <-from:
				return got
			case <-time.After(10 * time.Millisecond):
			}
		}
		t.Fatalf("no %s within 10 s of collections", what)
		return 0
	}
	for want := 1; want <= 3; want++ {
		if got := next("call", calls); got != want {
			t.Fatalf("call %d, want %d", got, want)
		}
	}
	// a witness armed now is called after the same collections as a next
	// call of the stopped one would be: twice, and the stopped one never
	witness := make(chan int, 16)
	w := 0
	afterEachGC(func() bool { w++; witness <- w; return w < 2 })
	next("witness", witness)
	next("witness", witness)
	select {
	case got := <-calls:
		t.Fatalf("called again (%d) after it said stop", got)
	default:
	}
}
