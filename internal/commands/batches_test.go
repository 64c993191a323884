package commands

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/poller"
)

// actionsOn connects to addr with timeout and makes the audited actions,
// closed when the test ends.
func actionsOn(t *testing.T, addr string, timeout time.Duration, audit string) *actions {
	t.Helper()
	cfg := poller.Config{Addrs: []string{addr}, Timeout: timeout}
	pc, err := poller.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	a, err := newActions(pc, cfg, audit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// stopAfter is a context whose Err turns Canceled after it was asked n
// times: a signal that arrives after the n-th batch.
type stopAfter struct {
	context.Context
	n atomic.Int32
}

func (s *stopAfter) Err() error {
	if s.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// requeue --expired writes one audit line per batch as it goes, and a
// signal stops it between batches with what was moved on record.
func TestRequeueExpiredAuditsEachBatch(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	ctx := context.Background()
	const q, jobs = "fills", 2500
	for i := 0; i < jobs; i++ {
		if _, err := echomq.Enqueue(ctx, c, q, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := echomq.Claim(ctx, c, q, time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	vtest.UntilExpired(t, c, q, jobs)
	audit := filepath.Join(t.TempDir(), "a.log")
	a := actionsOn(t, cl.Nodes[0].Addr(), 2*time.Second, audit)

	// stopped after the first batch: 1,000 moved, one line on record
	stop := &stopAfter{Context: ctx}
	stop.n.Store(1)
	n, err := requeueExpiredBatches(ctx, stop, a, q, 0)
	if !errors.Is(err, errStopped) || n != echomq.DrainBatch {
		t.Fatalf("stopped run: moved %d, %v; want %d and a stop", n, err, echomq.DrainBatch)
	}
	if lines := auditLines(t, audit); len(lines) != 1 || *lines[0].Count != echomq.DrainBatch {
		t.Fatalf("after one batch the audit log holds %+v", lines)
	}
	// the rest, one line per batch: 1,000 then 500
	n, err = requeueExpiredBatches(ctx, ctx, a, q, 0)
	if err != nil || n != jobs-echomq.DrainBatch {
		t.Fatalf("moved %d, %v", n, err)
	}
	lines := auditLines(t, audit)
	sum := 0
	for _, l := range lines {
		if l.Action != "requeue-expired" || l.Outcome != "done" || l.Count == nil {
			t.Errorf("audit line %+v", l)
			continue
		}
		sum += *l.Count
	}
	if len(lines) != 3 || sum != jobs {
		t.Errorf("%d audit lines counting %d jobs; want 3 counting %d", len(lines), sum, jobs)
	}
}

// A batch that gets no answer in time (its node paused) is an unknown
// outcome, not a failure: the operator is told it may have been applied,
// the audit line says unknown, and the queue is read again once the node
// answers. Here the node resumes and runs the batch it was sent.
func TestDrainTimeoutIsUnknown(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3, NodeTimeout: 30 * time.Second})
	c := vtest.Client(t, cl)
	ctx := context.Background()
	const q = "orders"
	for i := 0; i < 1500; i++ {
		if _, err := echomq.Enqueue(ctx, c, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	owner, err := cl.Owner(int(keyspace.QueueSlot(q)))
	if err != nil {
		t.Fatal(err)
	}
	addr := cl.Nodes[owner].Addr()
	audit := filepath.Join(t.TempDir(), "a.log")
	a := actionsOn(t, addr, 300*time.Millisecond, audit)
	cfg := poller.Config{Timeout: 300 * time.Millisecond}
	if ok, err := poller.QueueExists(ctx, a.c, q); !ok || err != nil { // the connection is up
		t.Fatalf("exists %v %v", ok, err)
	}
	if err := cl.Pause(owner); err != nil {
		t.Fatal(err)
	}
	resumed := make(chan struct{})
	defer func() { <-resumed }()
	n, err := batches(ctx, func() (int, bool, error) {
		// the bound of one call, as --timeout gives it
		cctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
		n, left, err := a.DrainStep(cctx, q, drainStepSize)
		return n, left == 0 || n == 0, err
	})
	go func() { cl.Resume(owner); close(resumed) }()
	if !errors.Is(err, errUnknown) {
		t.Fatalf("a drain batch without an answer: %d, %v; want an unknown outcome", n, err)
	}
	var out, errb bytes.Buffer
	w := writeFlags{queue: q}
	if rc := report(a, w, n, "drained %d pending jobs of %s", err, &out, &errb); rc != exitError {
		t.Errorf("rc %d", rc)
	}
	if !strings.Contains(out.String(), "may have been applied") || !strings.Contains(errb.String(), "outcome is unknown") ||
		!strings.Contains(errb.String(), `"orders" now holds`) {
		t.Errorf("stdout %q\nstderr %q", out.String(), errb.String())
	}
	if testing.Verbose() {
		t.Logf("stdout %q\nstderr %q", out.String(), errb.String())
	}
	lines := auditLines(t, audit)
	if len(lines) != 1 || lines[0].Outcome != "unknown" || lines[0].Count != nil || !strings.Contains(lines[0].Error, "may have been applied") {
		t.Errorf("audit %+v", lines)
	}
}
