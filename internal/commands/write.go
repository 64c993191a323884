package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// writeFlags are the flags of requeue and drain.
type writeFlags struct {
	conn     connFlags
	queue    string
	readOnly bool
	auditLog string
}

func (w *writeFlags) register(fs *flag.FlagSet) {
	w.conn.register(fs)
	fs.StringVar(&w.queue, "queue", "", "the `queue`")
	fs.BoolVar(&w.readOnly, "read-only", false, "refuse to write (exit status 3)")
	fs.StringVar(&w.auditLog, "audit-log", "", "append the action to `FILE` (default $XDG_STATE_HOME/emqtop/audit.log)")
}

// connect validates the queue and makes the audited actions.
func (w *writeFlags) connect(stderr io.Writer) (*actions, func(), int) {
	if err := keyspace.ValidateQueue(w.queue); err != nil {
		complain(stderr, "emqtop: --queue", err)
		return nil, nil, exitUsage
	}
	cfg, err := w.conn.config()
	if err != nil {
		complain(stderr, "emqtop", err)
		return nil, nil, exitUsage
	}
	cfg.ReadOnly = w.readOnly
	c, err := poller.Connect(cfg)
	if err != nil {
		complain(stderr, "emqtop", err)
		return nil, nil, exitError
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	exists, err := poller.QueueExists(ctx, c, w.queue)
	cancel()
	if err != nil || !exists {
		c.Close()
		if err != nil {
			fmt.Fprintf(stderr, "emqtop: %s: %s\n", keyspace.Quote(w.queue), textgate.Text(poller.ErrText(err, cfg.Timeout)))
			return nil, nil, exitError
		}
		fmt.Fprintln(stderr, "emqtop: refused:", textgate.Text(poller.NoKeys(w.queue, cfg.Target())))
		return nil, nil, exitRefused
	}
	a, err := newActions(c, cfg, w.auditLog)
	if err != nil {
		c.Close()
		complain(stderr, "emqtop", err)
		return nil, nil, exitError
	}
	return a, func() { a.Close(); c.Close() }, exitOK
}

// status words an action's outcome on stderr and gives the exit status:
// 0 done, 3 refused (fenced, not active, read-only), 1 error.
func status(err error, stderr io.Writer) int {
	var r *model.Refused
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &r):
		fmt.Fprintln(stderr, "emqtop: refused:", textgate.Text(r.Reason))
		return exitRefused
	case errors.Is(err, model.ErrNoPerm):
		complain(stderr, "emqtop: refused", err) // err begins with ErrNoPerm's words: once is enough
		return exitRefused
	}
	complain(stderr, "emqtop", err)
	return exitError
}

func runRequeue(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("requeue", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var w writeFlags
	w.register(fs)
	job := fs.String("job", "", "the active job's `id`")
	attempts := fs.Int64("attempts", -1, "the job's attempts as you saw them (the fence)")
	expired := fs.Bool("expired", false, "requeue every job whose lease ran out, instead of one job")
	limit := fs.Int("limit", 0, "with --expired: at most `N` jobs (0: all)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: emqtop requeue --queue Q --job ID --attempts N\n       emqtop requeue --queue Q --expired [--limit N]")
		fs.PrintDefaults()
	}
	if code := noNames(fs, args, stderr); code != exitOK {
		return code
	}
	switch {
	case *expired && (*job != "" || *attempts >= 0):
		fmt.Fprintln(stderr, "emqtop requeue: --expired takes no --job or --attempts")
		return exitUsage
	case !*expired && *job == "":
		fs.Usage()
		return exitUsage
	case !*expired && *attempts < 0:
		fmt.Fprintln(stderr, "emqtop requeue: --attempts is required: it is the fence that keeps a requeue from being applied twice")
		return exitUsage
	case !*expired:
		if err := keyspace.ValidateJobID(*job); err != nil {
			complain(stderr, "emqtop requeue: --job", err)
			return exitUsage
		}
	}
	a, closeFn, rc := w.connect(stderr)
	if rc != exitOK {
		return rc
	}
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if *expired {
		stop, unstop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer unstop()
		n, err := requeueExpiredBatches(ctx, stop, a, w.queue, *limit)
		return report(a, w, n, "requeued %d expired jobs of %s", err, stdout, stderr)
	}
	err := a.Requeue(ctx, w.queue, *job, *attempts)
	if err == nil {
		fmt.Fprintf(stdout, "requeued %s of %s (attempts %d)\n", *job, keyspace.Quote(w.queue), *attempts)
	}
	return status(err, stderr)
}

func runDrain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var w writeFlags
	w.register(fs)
	yes := fs.Bool("yes", false, "confirm: remove every pending job of the queue")
	if code := noNames(fs, args, stderr); code != exitOK {
		return code
	}
	if !*yes {
		fmt.Fprintln(stderr, "emqtop drain: removes every pending job of the queue; confirm with --yes")
		return exitUsage
	}
	a, closeFn, rc := w.connect(stderr)
	if rc != exitOK {
		return rc
	}
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	stop, unstop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer unstop()
	total, err := batches(stop, func() (int, bool, error) {
		n, left, err := a.DrainStep(ctx, w.queue, drainStepSize)
		return n, left == 0 || n == 0, err
	})
	if err == nil {
		fmt.Fprintf(stdout, "drained %d pending jobs of %s; active jobs untouched\n", total, keyspace.Quote(w.queue))
		return exitOK
	}
	return report(a, w, total, "drained %d pending jobs of %s", err, stdout, stderr)
}

// errStopped: a signal stopped a batched action between two batches.
var errStopped = errors.New("stopped by a signal between batches")

// batches runs step, one audited batch at a time, until it says it is
// done, fails, or stop ends; stop is checked between batches only, so a
// batch sent is always answered and audited.
func batches(stop context.Context, step func() (n int, done bool, err error)) (int, error) {
	total := 0
	for {
		if stop.Err() != nil {
			return total, errStopped
		}
		n, done, err := step()
		total += n
		if err != nil || done {
			return total, err
		}
	}
}

// requeueExpiredBatches requeues the expired jobs of queue, at most limit
// (0: all), a batch of 1,000 per script and one audit line per batch.
func requeueExpiredBatches(ctx, stop context.Context, a *actions, queue string, limit int) (int, error) {
	total := 0
	return batches(stop, func() (int, bool, error) {
		batch := echomq.DrainBatch
		if limit > 0 {
			batch = min(batch, limit-total)
		}
		n, err := a.RequeueExpired(ctx, queue, batch)
		total += n
		return n, n < batch || (limit > 0 && total >= limit), err
	})
}

// report says how a batched action ended: what was done, and after an
// unknown outcome (no answer in time) what the queue holds now, read again.
func report(a *actions, w writeFlags, n int, done string, err error, stdout, stderr io.Writer) int {
	what := fmt.Sprintf(done, n, keyspace.Quote(w.queue))
	switch {
	case err == nil:
		fmt.Fprintln(stdout, what)
		return exitOK
	case errors.Is(err, errStopped):
		fmt.Fprintf(stdout, "%s, then stopped by a signal between batches\n", what)
		return exitError
	case errors.Is(err, errUnknown):
		fmt.Fprintf(stdout, "%s for certain; then a batch got no answer in time: it may have been applied\n", what)
		code := status(err, stderr)
		fmt.Fprintln(stderr, "emqtop:", queueNow(a, w.queue))
		return code
	}
	fmt.Fprintf(stdout, "%s before the error\n", what)
	return status(err, stderr)
}

// queueNow reads the queue again after an unknown outcome, waiting up to
// 10s for its node (a paused node may be resuming).
func queueNow(a *actions, queue string) string {
	k, _ := keyspace.KeysOf(queue)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		p, perr := a.c.Do(ctx, a.c.B().Zcard().Key(k.Pending).Build()).AsInt64()
		ac, aerr := a.c.Do(ctx, a.c.B().Zcard().Key(k.Active).Build()).AsInt64()
		if perr == nil && aerr == nil {
			return fmt.Sprintf("%s now holds %d pending and %d active jobs (read again after the unknown outcome)", keyspace.Quote(queue), p, ac)
		}
		if ctx.Err() != nil {
			return fmt.Sprintf("%s could not be read again within 10s: look at it before acting again", keyspace.Quote(queue))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

const drainStepSize = 1000

// noNames parses the flags of a command that takes no names, and refuses a
// stray argument by name.
func noNames(fs *flag.FlagSet, args []string, stderr io.Writer) int {
	names, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(names) > 0 {
		fmt.Fprintf(stderr, "emqtop %s: unexpected argument %s (every value is given with a flag)\n", fs.Name(), keyspace.Quote(names[0]))
		return exitUsage
	}
	return exitOK
}
