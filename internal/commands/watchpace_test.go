package commands

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/echomq/emqtop/model"
)

// slowFirst is a source whose first poll takes as long as many intervals
// (a first line of a million queues), and which ends the stream after
// polls polls, noting when each began.
type slowFirst struct {
	first  time.Duration
	polls  int
	at     []time.Time
	cancel context.CancelFunc
}

func (s *slowFirst) Poll(context.Context) (*model.Snapshot, error) {
	s.at = append(s.at, time.Now())
	if len(s.at) == 1 {
		time.Sleep(s.first) // the slow poll itself, not a wait for a result
	}
	if len(s.at) == s.polls {
		s.cancel()
	}
	return &model.Snapshot{TakenAt: time.Now(), Queues: model.ListOf(&model.Queue{Name: "q"})}, nil
}

// After a first line that took ten intervals, the stream goes on a line an
// interval, not with a burst of polls a few ms apart making up the ticks
// it missed (at a million queues: nine lines at once, then one a second).
func TestWatchDoesNotMakeUpALateLine(t *testing.T) {
	const interval = 30 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &slowFirst{first: 10 * interval, polls: 5, cancel: cancel}
	if rc := watchLoop(ctx, src, interval, &deltas{}, io.Discard, io.Discard); rc != exitOK {
		t.Fatalf("exit %d", rc)
	}
	if len(src.at) != src.polls {
		t.Fatalf("%d polls, want %d", len(src.at), src.polls)
	}
	for i := 2; i < len(src.at); i++ {
		if gap := src.at[i].Sub(src.at[i-1]); gap < interval*3/4 {
			t.Errorf("poll %d began %v after poll %d: a burst, not a line an interval (%v)", i+1, gap, i, interval)
		}
	}
}
