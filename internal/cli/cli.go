// Package cli is emqtop's command line: the subcommands, their flags, and
// the wiring of the packages beneath them.
package cli

import (
	"fmt"
	"io"

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
  emqtop slot QUEUE...        where a queue's keys land
  emqtop requeue --queue Q --job ID --attempts N
  emqtop requeue --queue Q --expired [--limit N]
  emqtop drain --queue Q --yes
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
		case "demo":
			return runDemo(args[1:], stdout, stderr)
		case "keys":
			fmt.Fprint(stdout, ui.KeyTable(ui.DefaultKeyMap()))
			return exitOK
		case "help":
			fmt.Fprint(stdout, usage)
			return exitOK
		}
	}
	return runRoot(args, stdout, stderr)
}
