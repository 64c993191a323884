package echomq

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// A queue whose slot is half moved (pending on the target, active still on
// the source) is refused with TRYAGAIN before anything runs: requeue of
// the expired jobs tries again until the move ends, then does it whole
// (14 of 22 runs of emqtop requeue --expired exited 1 on TRYAGAIN).
func TestRequeueExpiredDuringAMove(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	const q = "moving"
	for i := 0; i < 6; i++ {
		if _, err := Enqueue(ctx, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		if _, _, err := Claim(ctx, c, q, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	slot := int(keyspace.QueueSlot(q))
	m, from, _, err := cl.BeginMoveAway(slot)
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := keyspace.KeysOf(q)
	if err := m.Migrate(keys.Pending); err != nil {
		t.Fatal(err)
	}
	tryagains := func() int {
		conn, err := testcluster.Dial(cl.Nodes[from].Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		v, _ := conn.Do("INFO", "errorstats")
		s, _ := v.(string)
		for _, l := range strings.Split(s, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "errorstat_TRYAGAIN:count="); ok {
				n := 0
				for _, r := range rest {
					if r < '0' || r > '9' {
						break
					}
					n = n*10 + int(r-'0')
				}
				return n
			}
		}
		return 0
	}
	// kept refused until the caller's deadline: it says the slot is moving,
	// nothing written
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = RequeueExpired(short, c, q, 0)
	cancel()
	if !errors.Is(err, ErrSlotMoving) {
		t.Fatalf("a move that does not end: %v, want ErrSlotMoving", err)
	}
	// the move ends while it tries again: done whole. How long the move
	// takes to end (the keys migrated, both nodes told, their clients'
	// redirections agreeing) is the machine's: under two busy loops it
	// outlasted TryAgainFor from the requeue's start (it gave up on a
	// MOVED 4.96 s in). The bound is the short deadline's case above; here
	// it is lifted, so what is proven is the whole requeue once it ends.
	tryAgainFor = 2 * time.Minute
	t.Cleanup(func() { tryAgainFor = TryAgainFor })
	seen := tryagains()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() { n, err := RequeueExpired(ctx, c, q, 0); done <- result{n, err} }()
	// refused at least once more: it is retrying
	vtest.Until(t, 30*time.Second, "the requeue refused with TRYAGAIN", func() bool { return tryagains() > seen })
	if err := m.MigrateAll(); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute): // tryAgainFor bounds it sooner
		t.Fatal("requeue --expired across the move never returned")
	}
	if r.err != nil || r.n != 3 {
		t.Fatalf("requeue --expired across the move: %d, %v; want 3", r.n, r.err)
	}
}
