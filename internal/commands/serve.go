package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/echomq/emqtop/internal/serve"
	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// DefaultSSH is where emqtop serve listens for SSH when --ssh is not given
// (and --metrics is not given alone): loopback, for a bastion's users.
const DefaultSSH = "127.0.0.1:2222"

type serveFlags struct {
	root        rootFlags // the connection, --queues, --interval, --audit-log
	ssh         string
	metrics     string
	metricsQ    int // --metrics-queues
	readers     string
	operators   string
	hostKey     string
	idle        time.Duration
	maxSessions int
	demo        string // the demo's label for the status bar; "" for a real server
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.root.conn.register(fs)
	fs.StringVar(&f.root.queues, "queues", "", "poll only these queues, `a,b,c` (skips discovery)")
	fs.DurationVar(&f.root.interval, "interval", time.Second, "time between polls (one poller for every session)")
	f.root.registerPolling(fs)
	fs.StringVar(&f.root.auditLog, "audit-log", "", "append every operator's action to `FILE` (default $XDG_STATE_HOME/emqtop/audit.log)")
	fs.StringVar(&f.ssh, "ssh", "", "serve the dashboard over SSH on `ADDR` (default "+DefaultSSH+"; none with --metrics alone)")
	fs.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics on `ADDR` (/metrics), from the shared snapshot")
	fs.IntVar(&f.metricsQ, "metrics-queues", serve.DefaultMetricsQueues, "the most queues with series of their own in the metrics (past it, those that failed, then with the most expired, then pending, jobs)")
	fs.StringVar(&f.readers, "readers", "", "public keys that may watch, in authorized_keys format (`FILE`)")
	fs.StringVar(&f.operators, "operators", "", "public keys that may also act (requeue, drain), in authorized_keys format (`FILE`)")
	fs.StringVar(&f.hostKey, "host-key", "", "the server's host key (`FILE`; default $XDG_STATE_HOME/emqtop/ssh_host_ed25519_key, made on first start)")
	fs.DurationVar(&f.idle, "idle-timeout", 30*time.Minute, "end a session with no key for this long")
	fs.IntVar(&f.maxSessions, "max-sessions", 32, "the most sessions served at once")
}

// newServeFlags are serve's flags as the command line leaves them when
// none is given: every path that builds serve's flags (the demo, the
// tests) starts from here, so a flag added later has its default there.
func newServeFlags() serveFlags {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	_ = fs.Parse(nil)
	return f
}

func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f serveFlags
	f.register(fs)
	names, err := parseArgs(fs, args)
	if err != nil || len(names) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "emqtop serve: takes no argument, not %s\n", textgate.Text(names[0]))
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	sshSet := false
	fs.Visit(func(fl *flag.Flag) { sshSet = sshSet || fl.Name == "ssh" })
	if !sshSet && f.metrics == "" {
		f.ssh = DefaultSSH
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	return serveUntil(ctx, f, stdout, stderr, nil)
}

// shutdownGrace is how long serve waits, once told to stop, for every
// session to end with its terminal restored and its message. A session
// quits at once, and serve closes as soon as the last one has; it was a
// second at most, and on a loaded machine a session still sending a
// 500×300 frame was cut off with its terminal in the dashboard's modes. A
// client that does not read holds serve no longer than this.
const shutdownGrace = 5 * time.Second

// served is what serveUntil started, for tests: the addresses bound.
type served struct{ ssh, metrics string }

// serveUntil serves until ctx ends, then ends every session with a
// message, stops the poller and closes the listeners, once every session
// has ended (shutdownGrace at most).
func serveUntil(ctx context.Context, f serveFlags, stdout, stderr io.Writer, ready func(served)) int {
	const name = "emqtop serve"
	fail := func(code int, err error) int { complain(stderr, name, err); return code }
	if f.ssh == "" && f.metrics == "" {
		return fail(exitUsage, errors.New("nothing to serve: give --ssh ADDR, --metrics ADDR, or both"))
	}
	if f.metricsQ < 0 {
		return fail(exitUsage, fmt.Errorf("--metrics-queues %d: give 0 or more (0: no series for any queue)", f.metricsQ))
	}
	var keys *serve.Keys
	var hostPEM []byte
	if f.ssh != "" {
		var err error
		if keys, hostPEM, err = sshIdentity(f, stdout); err != nil {
			return fail(exitUsage, err)
		}
	}
	cfg, err := f.root.conn.config()
	if err != nil {
		return fail(exitUsage, err)
	}
	opt, err := f.root.pollerOptions(cfg)
	if err != nil {
		return fail(exitUsage, err)
	}
	LimitMemory()
	rcfg := cfg
	rcfg.ReadOnly = true // the poller's client and the readers' job reads can never write
	rc, err := poller.Connect(rcfg)
	if err != nil {
		return fail(exitError, err)
	}
	defer rc.Close()
	p := poller.New(rc, opt)
	defer p.Close()
	hub := serve.NewHub(p, rc, f.root.interval)
	hctx, stopHub := context.WithCancel(context.Background())
	hubDone := make(chan struct{})
	go func() { hub.Run(hctx); close(hubDone) }()
	defer func() { stopHub(); <-hubDone }()

	var srv *serve.Server
	var addrs served
	if f.ssh != "" {
		var closeSSH func()
		if srv, addrs.ssh, closeSSH, err = startSSH(f, hub, keys, hostPEM, cfg, opt.Target, stdout, stderr); err != nil {
			return fail(exitError, err)
		}
		defer closeSSH()
	}
	var msrv *http.Server
	if f.metrics != "" {
		if msrv, addrs.metrics, err = startMetrics(f.metrics, f.metricsQ, hub, srv, stdout); err != nil {
			return fail(exitError, err)
		}
	}
	if ready != nil {
		ready(addrs)
	}
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if srv != nil {
		srv.Shutdown(sctx)
	}
	if msrv != nil {
		msrv.Shutdown(sctx)
	}
	fmt.Fprintf(stdout, "emqtop serve: stopped\n")
	return exitOK
}

// sshIdentity loads the authorized keys and the host key (made on the
// first start), and prints the host key's fingerprint.
func sshIdentity(f serveFlags, stdout io.Writer) (*serve.Keys, []byte, error) {
	keys, err := serve.LoadKeys(f.readers, f.operators)
	if err != nil {
		return nil, nil, err
	}
	path := f.hostKey
	if path == "" {
		if path, err = serve.DefaultHostKeyPath(); err != nil {
			return nil, nil, err
		}
	}
	pem, fp, err := serve.HostKey(path)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "emqtop serve: host key %s (%s)\n", fp, path)
	for _, n := range keys.Notes {
		fmt.Fprintf(stdout, "emqtop serve: %s\n", textgate.Text(n))
	}
	return keys, pem, nil
}

// startSSH starts the SSH server on f.ssh; operators' sessions get actions
// on a write client of their own (none is made when there is no operator).
func startSSH(f serveFlags, hub *serve.Hub, keys *serve.Keys, hostPEM []byte, cfg poller.Config, target string,
	stdout, stderr io.Writer) (*serve.Server, string, func(), error) {
	sc := serve.Config{HostKeyPEM: hostPEM, Keys: keys, IdleTimeout: f.idle, MaxSessions: f.maxSessions,
		Target: target, Interval: f.root.interval, Log: stderr, Demo: f.demo}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	if _, ops := keys.Count(); ops > 0 {
		wc, err := poller.Connect(cfg) // the write client: operators' sessions only
		if err != nil {
			return nil, "", nil, err
		}
		closers = append(closers, wc.Close)
		acts, err := newActions(wc, cfg, f.root.auditLog)
		if err != nil {
			closeAll()
			return nil, "", nil, err
		}
		closers = append(closers, func() { acts.Close() })
		sc.Actions = func(who serve.Who) (model.Actions, error) { return acts.asWho(who), nil }
	}
	srv, err := serve.NewServer(hub, sc)
	if err != nil {
		closeAll()
		return nil, "", nil, err
	}
	l, err := net.Listen("tcp", f.ssh)
	if err != nil {
		closeAll()
		return nil, "", nil, fmt.Errorf("--ssh %s: %w", f.ssh, err)
	}
	go srv.Serve(l)
	addr := l.Addr().String()
	host, port, _ := net.SplitHostPort(addr)
	r, o := keys.Count()
	fmt.Fprintf(stdout, "emqtop serve: dashboards over SSH for %d reader and %d operator keys: ssh -p %s %s\n", r, o, port, host)
	return srv, addr, closeAll, nil
}

// startMetrics serves /metrics on addr from the hub's snapshot.
func startMetrics(addr string, maxQueues int, hub *serve.Hub, srv *serve.Server, stdout io.Writer) (*http.Server, string, error) {
	sessions := func() int { return 0 }
	if srv != nil {
		sessions = srv.Sessions
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", serve.MetricsHandler(hub, sessions, maxQueues))
	msrv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("--metrics %s: %w", addr, err)
	}
	go msrv.Serve(l)
	bound := l.Addr().String()
	fmt.Fprintf(stdout, "emqtop serve: Prometheus metrics on http://%s/metrics\n", bound)
	return msrv, bound, nil
}
