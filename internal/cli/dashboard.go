package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

// source joins the poller and the job reader into the UI's Source.
type source struct {
	*poller.Poller
	c valkey.Client
}

func (s source) Job(ctx context.Context, queue, id string) (model.JobDetail, error) {
	return poller.ReadJob(ctx, s.c, queue, id, poller.PreviewBytes)
}

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

// runDashboard runs the TUI against the poller.
func runDashboard(r rootFlags, cfg poller.Config, opt poller.Options, stdout, stderr io.Writer) int {
	th, err := newTheme(stdout, r.theme, r.noColor)
	if err != nil {
		fmt.Fprintln(stderr, "emqtop:", err)
		return exitUsage
	}
	c, err := poller.Connect(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "emqtop:", safe.Text(err.Error()))
		return exitError
	}
	defer c.Close()
	p := poller.New(c, opt)
	defer p.Close()
	var acts ui.Actions
	if !r.readOnly {
		a, err := newActions(c, cfg, r.auditLog)
		if err != nil {
			fmt.Fprintln(stderr, "emqtop:", err)
			return exitError
		}
		defer a.Close()
		acts = a
	}
	m := ui.New(source{p, c}, th, ui.Options{Target: cfg.Target(), Interval: r.interval, Window: r.window,
		ReadOnly: r.readOnly, Actions: acts})
	prog := tea.NewProgram(m, tea.WithAltScreen(), tea.WithOutput(stdout))
	if _, err := prog.Run(); err != nil {
		fmt.Fprintln(stderr, "emqtop:", err)
		return exitError
	}
	return exitOK
}
