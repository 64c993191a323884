package commands

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/poller"
)

// rootFlags are the dashboard's flags, and --once's.
type rootFlags struct {
	conn     connFlags
	once     bool
	json     bool
	watch    bool
	whole    bool
	queues   string
	interval time.Duration
	readOnly bool
	theme    string
	noColor  bool
	noMouse  bool
	auditLog string
	window   time.Duration
	jobs     int
	full     bool
	budget   float64
}

// registerPolling registers what the dashboard, --watch and serve share
// about how the poller reads.
func (r *rootFlags) registerPolling(fs *flag.FlagSet) {
	fs.BoolVar(&r.full, "full", false, "read every queue each poll (by default a poll reads what changed, known by CLIENT TRACKING, and every slot once a minute)")
	fs.Float64Var(&r.budget, "budget", 2, "the server time emqtop's reads may cost each node, in `percent` of one core: past it the sweep, then the polls, slow down")
}

func (r *rootFlags) register(fs *flag.FlagSet) {
	r.conn.register(fs)
	fs.BoolVar(&r.once, "once", false, "print one snapshot and exit")
	fs.BoolVar(&r.json, "json", false, "with --once or --watch: print JSON")
	fs.BoolVar(&r.watch, "watch", false, "with --json: one JSON object a poll, a line each, until SIGTERM or the reader goes")
	fs.BoolVar(&r.whole, "whole", false, "with --watch: every queue on every line (by default a line after the first carries the queues that changed)")
	fs.IntVar(&r.jobs, "jobs", 0, "with --once: also list the first `N` pending and active jobs of each queue")
	fs.StringVar(&r.queues, "queues", "", "poll only these queues, `a,b,c` (skips discovery)")
	fs.DurationVar(&r.interval, "interval", time.Second, "time between polls")
	r.registerPolling(fs)
	fs.DurationVar(&r.window, "window", 0, "the lease timeline spans now±`window` (default: fitted to the leases it sees, from 5s to 1h)")
	fs.BoolVar(&r.readOnly, "read-only", false, "remove every action; no write command can be sent")
	fs.StringVar(&r.theme, "theme", "dark", "colour theme: dark, light, mono, or auto (by the terminal background)")
	fs.BoolVar(&r.noColor, "no-color", false, "no colour (also when $NO_COLOR is set)")
	fs.BoolVar(&r.noMouse, "no-mouse", false, "leave the mouse to the terminal (its own text selection); by default a click focuses and selects, the wheel scrolls")
	fs.StringVar(&r.auditLog, "audit-log", "", "append every action to `FILE` (default $XDG_STATE_HOME/emqtop/audit.log)")
}

func (r *rootFlags) pinned() ([]string, error) {
	if r.queues == "" {
		return nil, nil
	}
	var out []string
	for _, q := range strings.Split(r.queues, ",") {
		q = strings.TrimSpace(q)
		if q == "" {
			continue
		}
		if err := keyspace.ValidateQueue(q); err != nil {
			return nil, fmt.Errorf("--queues: %w", err)
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, errors.New("--queues names no queue")
	}
	return out, nil
}

func (r *rootFlags) pollerOptions(cfg poller.Config) (poller.Options, error) {
	pinned, err := r.pinned()
	if err != nil {
		return poller.Options{}, err
	}
	if r.window < 0 {
		return poller.Options{}, errors.New("--window must be positive (or 0: fitted to the leases)")
	}
	// the same bounds as + and - at run time
	if r.interval < 250*time.Millisecond || r.interval > time.Minute {
		return poller.Options{}, fmt.Errorf("--interval %v: give 250ms to 1m (a shorter one would load the cluster for nothing)", r.interval)
	}
	if r.budget <= 0 || r.budget > 100 {
		return poller.Options{}, fmt.Errorf("--budget %v: give a percent of one core, more than 0 and at most 100 (2 by default)", r.budget)
	}
	return poller.Options{Target: cfg.Target(), Timeout: cfg.Timeout, Pinned: pinned,
		Replicas: cfg.Replicas, Window: r.pollWindow(), Dial: cfg.Dialer(), DialHeld: cfg.HeldDialer(), Full: r.full, Budget: r.budget / 100}, nil
}

// pollWindow is the histogram's span the poller starts with: --window, or
// a minute until the dashboard fits it to the leases.
func (r *rootFlags) pollWindow() time.Duration {
	if r.window > 0 {
		return r.window
	}
	return time.Minute
}

// runRoot is emqtop without a subcommand: the dashboard, or --once.
func runRoot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("emqtop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var r rootFlags
	r.register(fs)
	// --once gives 2 to "some node did not answer", so its bad usage is 1
	bad := exitUsage
	for _, a := range args {
		if a == "--once" || a == "-once" || strings.HasPrefix(a, "--once=") {
			bad = exitError
		}
	}
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	names, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return bad
	}
	if len(names) > 0 {
		fmt.Fprintf(stderr, "emqtop: unknown command %s\n", keyspace.Quote(names[0]))
		fs.Usage()
		return bad
	}
	if err := checkTheme(r.theme); err != nil {
		complain(stderr, "emqtop", err)
		return bad
	}
	cfg, err := r.conn.config()
	if err != nil {
		complain(stderr, "emqtop", err)
		return bad
	}
	// --once and --watch never write, and --read-only is enforced in the client itself
	cfg.ReadOnly = r.readOnly || r.once || r.watch
	opt, err := r.pollerOptions(cfg)
	if err != nil {
		complain(stderr, "emqtop", err)
		return bad
	}
	switch {
	case r.once && r.watch:
		fmt.Fprintln(stderr, "emqtop: --once and --watch: give one")
		return bad
	case r.whole && !r.watch:
		fmt.Fprintln(stderr, "emqtop: --whole is for --watch (each line with every queue)")
		return bad
	case r.watch && !r.json:
		fmt.Fprintln(stderr, "emqtop: --watch needs --json (a stream for scripts)")
		return bad
	case r.json && !r.once && !r.watch:
		fmt.Fprintln(stderr, "emqtop: --json needs --once or --watch")
		return bad
	}
	if r.watch {
		return runWatch(cfg, opt, r.interval, r.whole, stdout, stderr)
	}
	if r.jobs != 0 && !r.once || r.jobs < 0 || r.jobs > 1000 {
		fmt.Fprintln(stderr, "emqtop: --jobs is for --once, from 0 to 1000")
		return bad
	}
	if r.once {
		// --once never writes: it is read-only whatever the flags say
		if r.jobs > 0 {
			opt.DetailAll, opt.PendingK, opt.ActiveM = true, r.jobs, r.jobs
		}
		return runOnce(cfg, opt, r.json, stdout, stderr)
	}
	return runDashboard(r, cfg, opt, stdout, stderr)
}
