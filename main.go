// Command emqtop is a terminal dashboard for EchoMQ job queues stored in
// Valkey, standalone or Valkey Cluster.
package main

import (
	"os"

	"github.com/echomq/emqtop/internal/commands"
)

func main() {
	os.Exit(commands.Main(os.Args[1:], os.Stdout, os.Stderr))
}
