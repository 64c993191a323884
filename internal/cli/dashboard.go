package cli

import (
	"fmt"
	"io"

	"github.com/echomq/emqtop/poller"
)

func runDashboard(r rootFlags, cfg poller.Config, opt poller.Options, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "emqtop: the dashboard is not built yet; use --once")
	return exitError
}
