package poller

import (
	"context"
	"testing"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/echomq"
)

// The embedded server refuses TIME in a read-only script. The poller learns
// that from the first refusal and passes the time as an argument; every
// batch refused in that pipeline is retried too, so no queue ever shows the
// refusal (it did, for a poll, on all but the first batch).
func TestEmbeddedServerNeverShowsTheTimeRefusal(t *testing.T) {
	env, err := demo.Start(demo.EnvOptions{Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	queues := []string{"orders", "fills", "emails", "payments"} // four slots: four batches
	for _, q := range queues {
		if _, err := echomq.Enqueue(ctx, env.Client, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Addrs: env.Addrs, Timeout: 2 * time.Second, Standalone: true}
	c, err := Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := New(c, Options{Dial: cfg.Dialer(), Pinned: queues})
	defer p.Close()
	p.SetWindow(time.Minute)
	for i := 0; i < 3; i++ {
		p.SetDetail(queues[i%2:]...) // the detailed set changes: new scripts
		s, err := p.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range s.Queues.All() {
			if q.Err != "" || q.Pending != 1 {
				t.Errorf("poll %d, %s: pending %d, error %q", i, q.Name, q.Pending, q.Err)
			}
		}
	}
}
