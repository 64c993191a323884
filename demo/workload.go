// Package demo is emqtop's embedded default: a workload that moves queues
// the way production does, and the servers it runs on.
package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

// Named are the queues every demo has.
var Named = []string{"orders", "fills", "emails", "webhooks", "thumbnails", "reports", "payments", "search-index"}

// Config shapes a workload. Zero values take the defaults in brackets.
type Config struct {
	Seed      uint64        // random seed
	Synthetic int           // synthetic queues besides the named ones
	Rate      float64       // jobs enqueued per second on average [200]; bursts go to 4x
	Total     int64         // stop producing after this many jobs; 0 means never
	Workers   int           // concurrent workers [8]
	DieShare  float64       // share of claims whose worker dies holding the job
	SlowShare float64       // share of claims whose work outlasts the lease
	Lease     time.Duration // lease of a claim [2s]
	WorkMax   time.Duration // a normal job's work takes up to this [50ms]
	Reaper    time.Duration // requeue-expired every so often; 0: no reaper
	Hostile   float64       // share of payloads full of terminal escapes (for the demo)
	// Backlog: before the producers start, every queue is given 1 to
	// Backlog pending jobs, so the dashboard has every queue at once; 0: none.
	Backlog int
	// Unserved is the share of the synthetic queues that no worker claims
	// from (their consumers are down): their backlog only grows.
	Unserved float64
	// OnAck, when set, is called for every successful ack.
	OnAck func(queue, id string)
}

// Stats are the workload's counters.
type Stats struct {
	Enqueued, Claimed, Acked, Fenced, Abandoned, Reaped, Errors int64
}

// Workload runs producers, workers and optionally a reaper.
type Workload struct {
	cfg    Config
	c      valkey.Client
	queues []string
	served []string  // the queues the workers claim from
	weight []float64 // cumulative

	enqueued, claimed, acked, fenced, abandoned, reaped, errs atomic.Int64
	lastErr                                                   atomic.Pointer[error]
	producing                                                 atomic.Bool
	produced                                                  chan struct{} // closed when the producer has returned
}

// StopProducing ends the producers; the workers go on with what is queued.
func (w *Workload) StopProducing() { w.producing.Store(false) }

// Produced is closed once the producer has returned (after StopProducing,
// Total, or the end of Run): no enqueue is in flight, Stats' Enqueued is
// final.
func (w *Workload) Produced() <-chan struct{} { return w.produced }

// New builds a workload; Run starts it.
func New(c valkey.Client, cfg Config) *Workload {
	if cfg.Rate <= 0 {
		cfg.Rate = 200
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 8
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Second
	}
	if cfg.WorkMax <= 0 {
		cfg.WorkMax = 50 * time.Millisecond
	}
	w := &Workload{cfg: cfg, c: c, produced: make(chan struct{})}
	w.producing.Store(true)
	w.queues = append(w.queues, Named...)
	for i := 0; i < cfg.Synthetic; i++ {
		w.queues = append(w.queues, fmt.Sprintf("tenant-%03d", i))
	}
	// every n-th synthetic queue is unserved, so the share holds for any count
	every := 0
	if cfg.Unserved > 0 {
		every = max(1, int(1/cfg.Unserved+0.5))
	}
	for i, q := range w.queues {
		if i < len(Named) || every == 0 || (i-len(Named))%every != every-1 {
			w.served = append(w.served, q)
		}
	}
	// named queues carry most of the traffic, synthetic ones a long tail
	sum := 0.0
	for i := range w.queues {
		wt := 1.0 / float64(1+i)
		if i < len(Named) {
			wt = 4.0 / float64(1+i)
		}
		sum += wt
		w.weight = append(w.weight, sum)
	}
	return w
}

// Queues are the names the workload uses.
func (w *Workload) Queues() []string { return w.queues }

// Stats reads the counters.
func (w *Workload) Stats() Stats {
	return Stats{w.enqueued.Load(), w.claimed.Load(), w.acked.Load(), w.fenced.Load(),
		w.abandoned.Load(), w.reaped.Load(), w.errs.Load()}
}

// LastError is the last unexpected error, or nil.
func (w *Workload) LastError() error {
	if e := w.lastErr.Load(); e != nil {
		return *e
	}
	return nil
}

func (w *Workload) fail(err error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	w.errs.Add(1)
	w.lastErr.Store(&err) // a pointer: errors of different types may follow one another
}

func (w *Workload) pick(r *rand.Rand) string {
	x := r.Float64() * w.weight[len(w.weight)-1]
	lo, hi := 0, len(w.weight)-1
	for lo < hi {
		m := (lo + hi) / 2
		if w.weight[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return w.queues[lo]
}

// Served are the queues the workers claim from.
func (w *Workload) Served() []string { return w.served }

// Run runs until ctx ends and returns when every goroutine has stopped.
func (w *Workload) Run(ctx context.Context) {
	w.backlog(ctx, rand.New(rand.NewPCG(w.cfg.Seed, 2)))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(w.produced)
		w.produce(ctx, rand.New(rand.NewPCG(w.cfg.Seed, 1)))
	}()
	for i := 0; i < w.cfg.Workers; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); w.work(ctx, rand.New(rand.NewPCG(w.cfg.Seed, uint64(100+i))), i) }()
	}
	if w.cfg.Reaper > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); w.reap(ctx) }()
	}
	wg.Wait()
}

// produce enqueues at a bursty rate: every second the rate is redrawn
// between a fifth and four times the average.
func (w *Workload) produce(ctx context.Context, r *rand.Rand) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	factor, owed := 1.0, 0.0
	next := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			if now.After(next) {
				factor = 0.2 + r.Float64()*r.Float64()*3.8
				next = now.Add(time.Second)
			}
			owed += w.cfg.Rate * factor / 100
			for ; owed >= 1; owed-- {
				if (w.cfg.Total > 0 && w.enqueued.Load() >= w.cfg.Total) || !w.producing.Load() {
					return
				}
				q := w.pick(r)
				if _, err := echomq.Enqueue(ctx, w.c, q, w.payload(r, q)); err != nil {
					w.fail(err)
					continue
				}
				w.enqueued.Add(1)
			}
		}
	}
}

// backlog gives every queue 1 to Backlog pending jobs, counted as enqueued.
func (w *Workload) backlog(ctx context.Context, r *rand.Rand) {
	if w.cfg.Backlog <= 0 {
		return
	}
	for _, q := range w.queues {
		for n := 1 + r.IntN(w.cfg.Backlog); n > 0 && ctx.Err() == nil; n-- {
			if w.cfg.Total > 0 && w.enqueued.Load() >= w.cfg.Total {
				return
			}
			if _, err := echomq.Enqueue(ctx, w.c, q, w.payload(r, q)); err != nil {
				w.fail(err)
				continue
			}
			w.enqueued.Add(1)
		}
	}
}

func (w *Workload) payload(r *rand.Rand, q string) []byte {
	p := fmt.Sprintf(`{"queue":%q,"n":%d,"amount":%d.%02d}`, q, r.IntN(1e6), r.IntN(500), r.IntN(100))
	if r.Float64() < w.cfg.Hostile {
		p = "\x1b]0;owned\x07\x1b[2J\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07" + p
	}
	return []byte(p)
}

// work claims round-robin over the served queues, starting at a random one, and
// naps when a whole pass found nothing.
func (w *Workload) work(ctx context.Context, r *rand.Rand, n int) {
	name := fmt.Sprintf("demo-worker-%d", n)
	qs := w.served
	i := r.IntN(len(qs))
	misses := 0
	for ctx.Err() == nil {
		q := qs[i]
		job, ok, err := echomq.Claim(ctx, w.c, q, w.cfg.Lease)
		if err != nil {
			w.fail(err)
		}
		if !ok {
			i = (i + 1) % len(qs)
			if misses++; misses >= len(qs) {
				misses = 0
				sleep(ctx, 20*time.Millisecond)
			}
			continue
		}
		misses = 0
		w.claimed.Add(1)
		w.sign(ctx, q, job.ID, name)
		switch x := r.Float64(); {
		case x < w.cfg.DieShare:
			// the worker dies holding the job; a new one starts a bit later
			w.abandoned.Add(1)
			sleep(ctx, min(50*time.Millisecond, w.cfg.Lease/4))
			continue
		case x < w.cfg.DieShare+w.cfg.SlowShare:
			sleep(ctx, w.cfg.Lease+w.cfg.Lease/4+time.Duration(r.Int64N(int64(w.cfg.Lease/2))))
		default:
			sleep(ctx, time.Duration(r.Int64N(int64(w.cfg.WorkMax))))
		}
		if ctx.Err() != nil {
			return
		}
		switch err := echomq.Ack(ctx, w.c, q, job.ID, job.Attempts); {
		case err == nil:
			w.acked.Add(1)
			if w.cfg.OnAck != nil {
				w.cfg.OnAck(q, job.ID)
			}
		case errors.Is(err, echomq.ErrFenced), errors.Is(err, echomq.ErrNotActive):
			w.fenced.Add(1)
		default:
			w.fail(err)
		}
		if r.IntN(4) == 0 { // spread the workers over the queues
			i = r.IntN(len(qs))
		}
	}
}

// sign writes the worker's name into the job row it claimed, as workers
// do for their operators: the detail shows who held a stuck job.
func (w *Workload) sign(ctx context.Context, q, id, name string) {
	row, err := keyspace.JobKey(q, id)
	if err != nil {
		w.fail(err)
		return
	}
	w.fail(signScript.Exec(ctx, w.c, []string{row}, []string{name}).Error())
}

// signScript writes the name only into a row that still exists: the job
// may have been reaped, claimed and acked by another worker meanwhile.
var signScript = valkey.NewLuaScript(`if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'worker', ARGV[1]) end return 0`)

func (w *Workload) reap(ctx context.Context) {
	tick := time.NewTicker(w.cfg.Reaper)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			for _, q := range w.queues {
				n, err := echomq.RequeueExpired(ctx, w.c, q, 0)
				w.fail(err)
				w.reaped.Add(int64(n))
			}
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
