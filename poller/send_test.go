package poller

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/vtest"
)

// stuckClient is a node client whose DoMulti ignores its context until
// released, as valkey-go's does while another caller dials the node.
type stuckClient struct {
	valkey.Client
	release chan struct{}
}

func (c stuckClient) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	<-c.release
	return make([]valkey.ValkeyResult, len(cmds))
}

// TestSendBoundsTheWait: send returns when its context ends even when the
// client does not, and sends nothing more to that node until the stuck
// call has returned.
func TestSendBoundsTheWait(t *testing.T) {
	nc := stuckClient{release: make(chan struct{})}
	st := &nodeState{}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	returned := make(chan error, 1)
	go func() {
		_, err := send(ctx, nc, st, []valkey.Completed{{}})
		returned <- err
	}()
	select {
	case err := <-returned:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("send past its deadline: %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("send waited on the stuck client past its context")
	}
	if _, err := send(context.Background(), nc, st, []valkey.Completed{{}}); !errors.Is(err, errBusy) {
		t.Fatalf("a second send while the first is stuck: %v, want errBusy", err)
	}
	close(nc.release)
	vtest.Until(t, 30*time.Second, "the first send to end", func() bool { return !st.busy.Load() })
	r, err := send(context.Background(), nc, st, []valkey.Completed{{}})
	if err != nil || len(r) != 1 {
		t.Fatalf("send once the node answered again: %d replies, %v", len(r), err)
	}
}

// TestSendAgainAtOnce: once send has handed over an answer, the node takes
// the next pipeline at once (a NOSCRIPT retry follows its poll's first
// pipeline without a pause).
func TestSendAgainAtOnce(t *testing.T) {
	nc := stuckClient{release: make(chan struct{})}
	close(nc.release) // answers at once
	st := &nodeState{}
	for i := range 1000 {
		if _, err := send(context.Background(), nc, st, []valkey.Completed{{}}); err != nil {
			t.Fatalf("send %d right after an answered one: %v", i, err)
		}
	}
}
