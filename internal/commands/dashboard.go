package commands

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/internal/serve"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

// source joins the poller and the job reader into the UI's Source.
// newTheme builds the theme on a renderer of out. The background is asked
// for here, before the program starts reading the terminal (lipgloss issue
// 73); NO_COLOR and --no-color give the mono theme on an ASCII profile.
func newTheme(out io.Writer, name string, noColor bool) (*theme.Theme, error) {
	r := lipgloss.NewRenderer(out)
	if noColor || os.Getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
		name = "mono"
	}
	if name == "auto" {
		name = "dark"
		if !r.HasDarkBackground() {
			name = "light"
		}
	}
	return theme.New(r, name)
}

// runDashboard runs the TUI against the poller, until q or a signal.
func runDashboard(r rootFlags, cfg poller.Config, opt poller.Options, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return runTUI(ctx, "emqtop", "", r, cfg, opt, stdout, stderr)
}

// MemoryLimit is the floor of the dashboard's soft memory limit (unless
// GOMEMLIMIT is set): with 50,000 queues a poll makes tens of MB of
// garbage, and without a limit the heap grows to twice what is live before
// the GC returns it.
const MemoryLimit = 96 << 20

// LimitMemory keeps the soft memory limit a tenth above what is live, and
// 16 MB (at least MemoryLimit), unless the environment sets its own. A fixed limit
// under the live heap (the hour of history of 100,000 queues is 270 MB)
// would have the GC run without pause: half the dashboard's CPU went to it.
func LimitMemory() { limitOnce.Do(limitMemory) }

// limitOnce: one process, one limit and one sampler, however many
// dashboards it runs (each run started a ticker of its own that never
// stopped).
var limitOnce sync.Once

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(MemoryLimit)
	go func() {
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for range time.Tick(2 * time.Second) {
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			debug.SetMemoryLimit(memoryLimit(sample[0].Value.Uint64()))
		}
	}()
}

// memoryLimit is the soft limit for a live heap of live bytes.
func memoryLimit(live uint64) int64 {
	return max(MemoryLimit, int64(live+live/10)+16<<20)
}

// runTUI connects, polls and runs the program; the dashboard and the demo
// share it; demo names the demo in the status bar ("" for none). The terminal is restored on exit, on error and on panic (Bubble
// Tea catches panics in Update and View), and ctx ending quits the program.
func runTUI(ctx context.Context, name, demo string, r rootFlags, cfg poller.Config, opt poller.Options, stdout, stderr io.Writer) int {
	th, err := newTheme(stdout, r.theme, r.noColor)
	if err != nil {
		complain(stderr, name, err)
		return exitUsage
	}
	LimitMemory()
	c, err := poller.Connect(cfg)
	if err != nil {
		complain(stderr, name, err)
		return exitError
	}
	defer c.Close()
	p := poller.New(c, opt)
	defer p.Close()
	var acts model.Actions
	if !r.readOnly {
		a, err := newActions(c, cfg, r.auditLog)
		if err != nil {
			complain(stderr, name, err)
			return exitError
		}
		defer a.Close()
		acts = a
	}
	m := ui.New(p, th, ui.Options{Target: opt.Target, Demo: demo, Interval: r.interval, Window: r.window,
		ReadOnly: r.readOnly, Actions: acts, Copy: serve.Clipboard(stdout, os.Getenv)})
	defer m.Close()
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithOutput(stdout)}
	if !r.noMouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	prog := tea.NewProgram(m, opts...)
	go func() { <-ctx.Done(); prog.Quit() }()
	if _, err := prog.Run(); err != nil {
		complain(stderr, name, err)
		return exitError
	}
	return exitOK
}
