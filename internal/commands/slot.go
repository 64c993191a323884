package commands

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// runSlot prints each queue's slot and key pattern, and with --addr or
// --url the node that owns that slot now.
func runSlot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf connFlags
	cf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: emqtop slot [--addr host:port | --url URL] QUEUE...")
		fs.PrintDefaults()
	}
	queues, err := parseArgs(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(queues) == 0 {
		fs.Usage()
		return exitUsage
	}
	for _, q := range queues {
		if err := keyspace.ValidateQueue(q); err != nil {
			complain(stderr, "emqtop slot", err)
			return exitUsage
		}
	}
	var topo *model.Topology
	if flagSet(fs, "addr") || flagSet(fs, "url") {
		cfg, err := cf.config()
		if err != nil {
			complain(stderr, "emqtop slot", err)
			return exitUsage
		}
		c, err := poller.Connect(cfg)
		if err != nil {
			complain(stderr, "emqtop slot", err)
			return exitError
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout*2)
		defer cancel()
		if topo, err = poller.ReadTopology(ctx, c); err != nil {
			complain(stderr, "emqtop slot", err)
			return exitError
		}
	}
	for _, q := range queues {
		keys, _ := keyspace.KeysOf(q)
		line := fmt.Sprintf("%-24s slot %5d  %s", keyspace.Quote(q), keyspace.QueueSlot(q), keys.Pending[:len(keys.Pending)-len(keyspace.TypePending)]+"*")
		if topo != nil {
			owner := "no node covers it"
			if n := topo.OwnerOf(keyspace.QueueSlot(q)); n != nil {
				owner = textgate.Bounded(n.Addr, 60)
				if n.ID != "" {
					owner += " (" + textgate.Text(n.ID[:min(8, len(n.ID))]) + ")"
				}
			}
			line += "  node " + owner
		}
		fmt.Fprintln(stdout, line)
	}
	return exitOK
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
