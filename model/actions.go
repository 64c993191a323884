package model

import (
	"context"
	"errors"
)

// Actions are the writes an operator can make: the echomq scripts, the
// audit log and the read-only guard implement them below the UI, which
// only calls them and words their outcome.
type Actions interface {
	// Requeue moves an active job back to pending if its attempts still
	// equal the fence the operator saw.
	Requeue(ctx context.Context, queue, id string, attempts int64) error
	// RequeueExpired requeues up to limit jobs whose lease ran out.
	RequeueExpired(ctx context.Context, queue string, limit int) (moved int, err error)
	// DrainStep removes up to batch pending jobs; left is what remains.
	DrainStep(ctx context.Context, queue string, batch int) (removed, left int, err error)
}

// FindSearch is one find of a job's row by its id under way; each Step is
// one bounded SCAN page per primary, and says how far the find has gone.
type FindSearch interface {
	Step(ctx context.Context) FindProgress
}

// Refused is an action the server refused for a reason the operator should
// read as such (fenced, no longer active, read-only), not as a failure.
type Refused struct{ Reason string }

func (r *Refused) Error() string { return r.Reason }

// ErrNoPerm marks an error as the server refusing writes for this user; the
// session then turns read-only.
var ErrNoPerm = errors.New("the server refuses writes for this user")

// ErrUnknownOutcome marks an action that got no answer in time: the server
// may still apply it (a paused node runs what it was sent when it resumes),
// so it is reported as unknown, never as failed.
var ErrUnknownOutcome = errors.New("no answer in time: the outcome is unknown, it may have been applied")
