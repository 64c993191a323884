package demo

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// TestConservation: 20,000 jobs over 50 queues, 8 workers, 10% of claims
// dying and 10% slow, a reaper: every job is acked exactly once and nothing
// is left behind.
func TestConservation(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	const total = 20000
	var mu sync.Mutex
	acks := map[string]int{}
	w := New(c, Config{
		Seed: 7, Synthetic: 50 - len(Named), Rate: 8000, Total: total, Workers: 8,
		DieShare: 0.1, SlowShare: 0.1, Lease: 30 * time.Millisecond, WorkMax: time.Millisecond,
		Reaper: 10 * time.Millisecond,
		OnAck: func(q, id string) {
			mu.Lock()
			acks[q+"/"+id]++
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	vtest.Within(4*time.Minute, func() bool { return w.Stats().Acked >= total }) // and the counts are held below
	cancel()
	<-done
	s := w.Stats()
	t.Logf("stats %+v", s)
	if err := w.LastError(); err != nil {
		t.Errorf("workload error: %v", err)
	}
	if s.Enqueued != total || s.Acked != total {
		t.Fatalf("enqueued %d acked %d, want %d each", s.Enqueued, s.Acked, total)
	}
	if s.Abandoned == 0 || s.Fenced == 0 {
		t.Errorf("the test did not exercise dying (%d) and fenced (%d) workers", s.Abandoned, s.Fenced)
	}
	for k, n := range acks {
		if n != 1 {
			t.Errorf("%s acked %d times", k, n)
		}
	}
	if len(acks) != total {
		t.Errorf("%d distinct jobs acked, want %d", len(acks), total)
	}
	// nothing left anywhere: count every key on every primary
	left := 0
	for _, nc := range c.Nodes() {
		n, err := nc.Do(context.Background(), nc.B().Dbsize().Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		left += int(n)
	}
	if left != 0 {
		keys := []string{}
		for _, nc := range c.Nodes() {
			k, _ := nc.Do(context.Background(), nc.B().Keys().Pattern("*").Build()).AsStrSlice()
			keys = append(keys, k...)
		}
		t.Errorf("%d keys left: %.10v", left, keys)
	}
}

// TestBacklogAndUnserved: with a backlog every queue has pending jobs from
// the start, and the unserved queues are never claimed from: their jobs
// stay pending and nothing of theirs turns active.
func TestBacklogAndUnserved(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	w := New(c, Config{Seed: 3, Synthetic: 40, Rate: 400, Workers: 4, Backlog: 3, Unserved: 0.25,
		WorkMax: time.Millisecond})
	served := map[string]bool{}
	for _, q := range w.Served() {
		served[q] = true
	}
	if unserved := len(w.Queues()) - len(served); unserved != 10 {
		t.Fatalf("%d of 40 synthetic queues unserved, want 10", unserved)
	}
	for _, q := range Named {
		if !served[q] {
			t.Errorf("named queue %s is unserved", q)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	// the workers have worked a while (not for a while): 200 claims
	vtest.Until(t, time.Minute, "200 claims", func() bool { return w.Stats().Claimed >= 200 })
	cancel()
	<-done
	if err := w.LastError(); err != nil {
		t.Fatalf("workload error: %v", err)
	}
	for _, q := range w.Queues() {
		keys, err := keyspace.KeysOf(q)
		if err != nil {
			t.Fatal(err)
		}
		pending, err := c.Do(context.Background(), c.B().Zcard().Key(keys.Pending).Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		active, err := c.Do(context.Background(), c.B().Zcard().Key(keys.Active).Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		if !served[q] && (pending < 1 || active != 0) {
			t.Errorf("unserved queue %s: %d pending, %d active; want its backlog pending and none active", q, pending, active)
		}
	}
	if s := w.Stats(); s.Acked == 0 {
		t.Errorf("the served queues were not worked: %+v", s)
	}
}

// Errors of different types may follow one another (a script's error, a
// connection's): keeping the last must not panic (atomic.Value did).
func TestLastErrorOfAnyType(t *testing.T) {
	w := &Workload{}
	w.fail(errors.New("one"))
	w.fail(&net.OpError{Op: "dial", Err: errors.New("refused")})
	if err := w.LastError(); err == nil || !strings.Contains(err.Error(), "refused") || w.errs.Load() != 2 {
		t.Errorf("last error %v, %d errors", err, w.errs.Load())
	}
}
