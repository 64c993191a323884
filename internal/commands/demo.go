package commands

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/echomq/emqtop/demo"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/poller"
)

// runDemo starts servers of its own, runs the workload on them and opens
// the dashboard; on exit it stops everything it started.
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	embedded := fs.Bool("embedded", false, "use the in-process server even when valkey-server or redis-server is on PATH")
	noTUI := fs.Bool("no-tui", false, "run the servers and the workload only, and print how to attach")
	serveIt := fs.Bool("serve", false, "serve the demo's dashboard over SSH on a loopback port, to your own public keys (~/.ssh/*.pub)")
	replicas := fs.Int("replicas-per-primary", 0, "replicas of each of the 3 primaries")
	seed := fs.Uint64("seed", 1, "workload seed")
	var r rootFlags
	r.theme, r.interval = "dark", time.Second // no window: the timeline fits the leases
	fs.StringVar(&r.theme, "theme", "dark", "colour theme: dark, light, mono, or auto (by the terminal background)")
	fs.BoolVar(&r.noColor, "no-color", false, "no colour")
	fs.BoolVar(&r.noMouse, "no-mouse", false, "leave the mouse to the terminal")
	fs.BoolVar(&r.readOnly, "read-only", false, "remove every action")
	fs.StringVar(&r.auditLog, "audit-log", "", "append every action to `FILE`")
	if names, err := parseArgs(fs, args); err != nil || len(names) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "emqtop demo: takes no argument, not %s\n", keyspace.Quote(names[0]))
		}
		return exitUsage
	}
	if err := checkTheme(r.theme); err != nil {
		complain(stderr, "emqtop demo", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fmt.Fprintln(stderr, "emqtop demo: starting servers…")
	env, err := demo.Start(demo.EnvOptions{Embedded: *embedded, Replicas: *replicas})
	if err != nil {
		complain(stderr, "emqtop demo", err)
		return exitError
	}
	defer env.Close()
	if err := demo.SeedOddities(ctx, env.Client); err != nil {
		complain(stderr, "emqtop demo: seed", err)
		return exitError
	}
	w := demo.New(env.Client, demo.DemoConfig(*seed))
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { w.Run(wctx); close(done) }()
	defer func() { cancel(); <-done }()

	if *serveIt {
		return serveDemo(ctx, env, stdout, stderr)
	}
	if *noTUI {
		fmt.Fprintf(stdout, "demo running on %v (%s)\nattach with:  emqtop --addr %s\nstop with ctrl+c\n",
			env.Addrs, map[bool]string{true: "embedded server", false: "local cluster"}[env.Embedded], env.Addrs[0])
		<-ctx.Done()
		return exitOK
	}
	cfg := poller.Config{Addrs: env.Addrs, Timeout: 2 * time.Second, Standalone: env.Embedded, ReadOnly: r.readOnly}
	opt := poller.Options{Target: env.Target(), Timeout: cfg.Timeout, Window: r.pollWindow(), Dial: cfg.Dialer(), DialHeld: cfg.HeldDialer()}
	return runTUI(ctx, "emqtop demo", env.Label(), r, cfg, opt, stdout, stderr)
}

// serveDemo serves the demo over SSH on a free loopback port; the local
// user's public keys are its operators, so `ssh -p PORT 127.0.0.1` joins
// it from this machine.
func serveDemo(ctx context.Context, env *demo.Env, stdout, stderr io.Writer) int {
	home, err := os.UserHomeDir()
	if err != nil {
		complain(stderr, "emqtop demo --serve", err)
		return exitError
	}
	pubs, _ := filepath.Glob(filepath.Join(home, ".ssh", "*.pub"))
	var keys []byte
	for _, p := range pubs {
		if b, err := os.ReadFile(p); err == nil {
			keys = append(append(keys, b...), '\n')
		}
	}
	if len(pubs) == 0 {
		fmt.Fprintf(stderr, "emqtop demo --serve: no public key in %s/.ssh to let in: make one with  ssh-keygen -t ed25519\n", home)
		return exitError
	}
	dir, err := os.MkdirTemp("", "emqtop-demo-serve-")
	if err != nil {
		complain(stderr, "emqtop demo --serve", err)
		return exitError
	}
	defer os.RemoveAll(dir)
	ops := filepath.Join(dir, "operators")
	if err := os.WriteFile(ops, keys, 0o600); err != nil {
		complain(stderr, "emqtop demo --serve", err)
		return exitError
	}
	fmt.Fprintf(stdout, "emqtop demo --serve: the keys of %s may join, as operators\n", strings.Join(pubs, ", "))
	f := newServeFlags()
	f.root.conn.addr, f.root.conn.timeout = strings.Join(env.Addrs, ","), 2*time.Second
	f.root.interval, f.root.auditLog = time.Second, filepath.Join(dir, "audit.log")
	f.ssh, f.operators, f.hostKey = "127.0.0.1:0", ops, filepath.Join(dir, "host_key")
	f.idle, f.maxSessions, f.demo = 30*time.Minute, 32, env.Label()
	return serveUntil(ctx, f, stdout, stderr, nil)
}
