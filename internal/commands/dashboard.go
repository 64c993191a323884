package commands

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"

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

// gcRoom is how much the heap may grow between two collections: a share
// of what is live, in percent, and at least so many bytes however small
// the heap is.
type gcRoom struct {
	share int
	least uint64
}

var (
	// dashboardRoom: a quarter of what is live. An eighth, at a million
	// queues (450 MB live, 7.4 MB of garbage a poll), was a collection
	// every 5 polls and 126 ms of CPU a poll, 70% of it marking; a
	// quarter is one in 10 and 82 ms, for 25 MB more RSS (576 MB); a
	// half would be 55 ms and 650 MB, too near the gigabyte once an
	// hour of history is in.
	dashboardRoom = gcRoom{share: 25, least: 16 << 20}
	// onceRoom: --once runs for seconds and keeps all it reads to the end.
	// At 100,000 queues its least counts: 8 MB, not 16, is 58 MB of RSS,
	// not 64, for a tenth more of its wall. At a million its share does:
	// a fifth, not an eighth, is 12 collections while its heap grows to
	// 300 MB, not 19, each marking all that is live: 1.6-1.7x its poll,
	// not 2.0, for 8 MB more RSS (311-315 MB).
	onceRoom = gcRoom{share: 20, least: 8 << 20}
)

// LimitMemory sets GOGC so that the heap grows by a quarter of what is
// live between collections (at least 16 MB, at most as much again), unless
// the environment sets GOGC or GOMEMLIMIT. The garbage made by a poll is
// near the same whatever is live, and what is live is what holds the
// memory: a million queues' 450 MB grow to 560 between collections, not
// to 900 MB as the default would. Before, a soft memory limit a tenth
// above the live heap counted the runtime's own overhead too, so at a
// million queues it left 10 MB of room and the GC ran back to back: 1.3
// collections a poll, 700 ms of CPU.
func LimitMemory() { limitMemoryWith(dashboardRoom) }

// limitMemoryWith is LimitMemory with room between collections; the
// first call in a process sets it.
func limitMemoryWith(room gcRoom) { limitOnce.Do(func() { limitMemory(room) }) }

// limitOnce: one process, one tuner, however many dashboards it runs
// (each run had started a tuner of its own that never stopped).
var limitOnce sync.Once

func limitMemory(room gcRoom) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return
	}
	// GOGC is set at the end of each collection, from the live heap it
	// found: that is when the next one's goal is made, and it wakes the
	// process for nothing else. (It was a ticker, 250 ms and before that
	// 2 s: four wake-ups a second of an idle dashboard, each of them a
	// burst of the runtime's monitor waking every 20 µs.) The first
	// collection comes at 4 MB of heap, so --once's growth from nothing
	// is followed from its start. GOGC is set only when it changes.
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := -1
	afterEachGC(func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false
		}
		if p := gcPercent(sample[0].Value.Uint64(), room); p != last {
			debug.SetGCPercent(p)
			last = p
		}
		return true
	})
}

// afterEachGC calls f once after each garbage collection, on the
// runtime's cleanup goroutine, until f returns false: a cleanup on an
// object nothing holds runs after the collection that found it
// unreachable, and each call arms the next on a new one.
func afterEachGC(f func() bool) {
	type sentinel struct{ _ [16]byte } // not a tiny allocation: its cleanup runs
	s := new(sentinel)
	runtime.AddCleanup(s, func(f func() bool) {
		if f() {
			afterEachGC(f)
		}
	}, f)
}

// gcPercent is GOGC for a live heap of live bytes: room.share percent of
// it, at least room.least bytes, never more than the default's 100%.
func gcPercent(live uint64, room gcRoom) int {
	if live == 0 {
		return 100
	}
	p := (room.least*100 + live - 1) / live
	return int(min(100, max(uint64(room.share), p)))
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
