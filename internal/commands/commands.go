// Package commands is emqtop's command line: the subcommands, their flags, and
// the wiring of the packages beneath them.
package commands

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
)

// Exit statuses.
const (
	exitOK      = 0
	exitError   = 1
	exitUsage   = 2
	exitPartial = 2 // --once: some node did not answer
	exitRefused = 3 // an action refused: fenced, not active, read-only
)

const usage = `emqtop: a terminal dashboard for EchoMQ queues in Valkey.

usage:
  emqtop [flags]              the dashboard (emqtop --help for the flags)
  emqtop --once [--json]      one snapshot, printed
  emqtop demo [--embedded]    the dashboard on a demo cluster it starts
  emqtop serve --readers F --operators F [--ssh ADDR] [--metrics ADDR]
                              the dashboard over SSH, one poller for all; Prometheus metrics
  emqtop slot QUEUE...        where a queue's keys land
  emqtop requeue --queue Q --job ID --attempts N
  emqtop requeue --queue Q --expired [--limit N]
  emqtop drain --queue Q --yes
  emqtop rebalance [--by jobs|queues|expired|keys|cpu] [--max-moves N] [--json]
                              a plan of slot moves that evens the load, and its commands (never run)
  emqtop keys                 the key table, as Markdown
`

// Main runs emqtop with args (without the program name) and returns the
// exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "slot":
			return runSlot(args[1:], stdout, stderr)
		case "requeue":
			return runRequeue(args[1:], stdout, stderr)
		case "drain":
			return runDrain(args[1:], stdout, stderr)
		case "rebalance":
			return runRebalance(args[1:], stdout, stderr)
		case "demo":
			return runDemo(args[1:], stdout, stderr)
		case "serve":
			return runServe(args[1:], stdout, stderr)
		case "keys":
			fmt.Fprint(stdout, ui.KeyTable())
			return exitOK
		case "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		}
	}
	return runRoot(args, stdout, stderr)
}

// complain prints an error on stderr after who: through the gate, since an
// error's text may hold what a server said.
func complain(w io.Writer, who string, err error) {
	fmt.Fprintf(w, "%s: %s\n", who, textgate.Text(err.Error()))
}

// parseArgs parses fs from args and returns the names among them: flags
// may come after names (emqtop slot orders --addr h:p), and everything after
// "--" is a name.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	// what the flag package says quotes argv (an unknown flag, a bad
	// value): argv passes the gate like any other text, so
	// emqtop $'--\e]52;c;…' cannot write to the terminal
	fs.SetOutput(gatedWriter{fs.Output()})
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(names, rest...), nil
		}
		if len(rest) == 0 {
			return names, nil
		}
		names, args = append(names, rest[0]), rest[1:]
	}
}

// themes are the values of --theme: the theme package's and auto.
var themes = append(append([]string{}, theme.Names...), "auto")

// checkTheme refuses an unknown --theme before anything starts, the same
// way in every command.
func checkTheme(name string) error {
	if slices.Contains(themes, name) {
		return nil
	}
	return fmt.Errorf("--theme %s: want %s or %s", strconv.Quote(name),
		strings.Join(themes[:len(themes)-1], ", "), themes[len(themes)-1])
}

// gatedWriter passes what is written through the text gate, line breaks
// and tabs kept: the flag package's usage and errors quote argv.
type gatedWriter struct{ w io.Writer }

func (g gatedWriter) Write(p []byte) (int, error) {
	parts := strings.Split(string(p), "\t") // the usage's tabs are the flag package's own
	for i := range parts {
		parts[i] = textgate.Lines(parts[i])
	}
	if _, err := io.WriteString(g.w, strings.Join(parts, "\t")); err != nil {
		return 0, err
	}
	return len(p), nil
}
