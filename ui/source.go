// Package ui is the Bubble Tea program: one root model that delegates to
// one component per pane, a key map that drives dispatch and help, and the
// poll loop. It talks to the poller and the protocol only through the
// small interfaces below.
package ui

import (
	"context"
	"time"

	"github.com/echomq/emqtop/model"
)

// Source is where snapshots come from: the poller, or a fake in tests.
type Source interface {
	// Poll takes one snapshot; it is never called while one is running.
	Poll(ctx context.Context) (*model.Snapshot, error)
	// SetDetail names the queues whose jobs and lease histogram to read.
	SetDetail(queues ...string)
	// SetWindow sets the span of the lease histogram, now±w.
	SetWindow(w time.Duration)
	// Job reads one job row for the detail view.
	Job(ctx context.Context, queue, id string) (model.JobDetail, error)
}
