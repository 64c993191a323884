package commands

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// rebalanceTolerance is the plan's bound: every primary within ±10% of
// the mean share.
const rebalanceTolerance = 0.1

type jsonMove struct {
	Slot uint16 `json:"slot"`
	From string `json:"from"`
	To   string `json:"to"`
	Keys int64  `json:"keys"` // -1: not known (no CLUSTER SLOT-STATS)
}

type jsonPlan struct {
	By        string             `json:"by"`
	Tolerance float64            `json:"tolerance"`
	Moves     []jsonMove         `json:"moves"`
	Before    map[string]float64 `json:"before"`
	After     map[string]float64 `json:"after"`
	WhyNot    string             `json:"why_not"`
	HotQueues []string           `json:"hot_queues,omitempty"` // the queues of the slot why_not names
	Commands  []string           `json:"commands"`
	Note      string             `json:"note"`
}

const rebalanceNote = "emqtop never moves a slot itself: these are the steps of the cluster specification's live resharding, " +
	"to run (with -a or --user for an ACL) when the plan suits; the MIGRATE loop assumes keys without spaces, as EchoMQ's are"

// runRebalance prints a plan of slot moves that evens the load over the
// primaries, from one poll, and the commands to apply it. It sends no
// write: the client is read-only.
func runRebalance(args []string, stdout, stderr io.Writer) int {
	const name = "emqtop rebalance"
	fs := flag.NewFlagSet("rebalance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf connFlags
	cf.register(fs)
	by := fs.String("by", model.ByJobs, "the load to even out: "+strings.Join(model.PlanBys, ", "))
	maxMoves := fs.Int("max-moves", 64, "the most slot moves in the plan")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	if names, err := parseArgs(fs, args); err != nil || len(names) > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "%s: takes no argument, not %s\n", name, textgate.Text(names[0]))
		}
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if !slices.Contains(model.PlanBys, *by) {
		fmt.Fprintf(stderr, "%s: --by %s: give one of %s\n", name, textgate.Bounded(*by, 20), strings.Join(model.PlanBys, ", "))
		return exitUsage
	}
	if *maxMoves <= 0 {
		fmt.Fprintf(stderr, "%s: --max-moves %d: give a number of moves above 0\n", name, *maxMoves)
		return exitUsage
	}
	cfg, err := cf.config()
	if err != nil {
		complain(stderr, name, err)
		return exitUsage
	}
	cfg.ReadOnly = true // a plan, never a move
	opt := poller.Options{Target: cfg.Target(), Timeout: cfg.Timeout, Full: true, Dial: cfg.Dialer(), SlotStatsEvery: time.Second}
	p, closeFn, err := openPoller(cfg, opt)
	if err != nil {
		complain(stderr, name, err)
		return exitError
	}
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := p.DiscoverAll(ctx); err != nil {
		complain(stderr, name, err)
		return exitError
	}
	snap, err := p.Poll(ctx)
	for err == nil && *by == model.ByCPU && snap.Load != nil && snap.Load.CPU == nil && cpuComing(snap.Load) {
		time.Sleep(opt.SlotStatsEvery) // the CPU is a rate: a second read of the slot stats gives it
		snap, err = p.Poll(ctx)
	}
	if err != nil {
		complain(stderr, name, err)
		return exitError
	}
	if !snap.Cluster {
		complain(stderr, name, errors.New("a standalone server has no slots to move"))
		return exitRefused
	}
	if up, total := snap.NodesUp(); up < total {
		fmt.Fprintf(stderr, "%s: %d of %d primaries did not answer: the plan moves no slot to them, and their load is as last read\n", name, total-up, total)
	}
	fold := model.NewFold(snap)
	load, err := model.PlanLoad(fold, *by)
	if err != nil {
		complain(stderr, name, err)
		return exitRefused
	}
	plan, ids := planOf(snap, load, *by, *maxMoves)
	out := jsonPlan{By: plan.By, Tolerance: plan.Tolerance, Moves: []jsonMove{}, Before: plan.Before, After: plan.After,
		WhyNot: plan.WhyNot, Commands: []string{}, Note: rebalanceNote}
	if plan.HotSlot >= 0 {
		for _, q := range fold.QueuesIn(uint16(plan.HotSlot), uint16(plan.HotSlot)) {
			out.HotQueues = append(out.HotQueues, q.Name)
		}
	}
	for _, m := range plan.Moves {
		out.Moves = append(out.Moves, jsonMove{Slot: m.Slot, From: m.From, To: m.To, Keys: m.Keys})
		out.Commands = append(out.Commands, moveCommands(m, ids)...)
	}
	if *asJSON {
		b, _ := json.MarshalIndent(out, "", "  ")
		stdout.Write(textgate.JSON(b))
		fmt.Fprintln(stdout)
		return exitOK
	}
	printPlan(stdout, out)
	return exitOK
}

// cpuComing: some primary gives CPU per slot, from one read so far.
func cpuComing(l *model.SlotLoad) bool {
	for _, n := range l.Nodes {
		if n.Mode == model.SlotStatsFull && n.RatesOver == 0 {
			return true
		}
	}
	return false
}

// planOf runs the plan over the snapshot's primaries; ids maps an address
// to its node id, for the commands.
func planOf(snap *model.Snapshot, load []float64, by string, maxMoves int) (model.Plan, map[string]string) {
	ids := map[string]string{}
	for _, i := range snap.Topology.Primaries() {
		n := snap.Topology.Nodes[i]
		ids[n.Addr] = n.ID
	}
	return model.RebalanceSnapshot(snap, load, by, maxMoves, rebalanceTolerance), ids
}

// moveCommands are the live resharding steps of one move, as the cluster
// specification gives them: IMPORTING on the target, MIGRATING on the
// source, MIGRATE the keys in batches until none is left, NODE on both.
func moveCommands(m model.Move, ids map[string]string) []string {
	fh, fp, _ := net.SplitHostPort(m.From)
	th, tp, _ := net.SplitHostPort(m.To)
	cli := func(h, p string) string { return fmt.Sprintf("valkey-cli -h %s -p %s", h, p) }
	keys := "unknown"
	if m.Keys >= 0 {
		keys = fmt.Sprint(m.Keys)
	}
	return []string{
		fmt.Sprintf("# slot %d: %s to %s (%s keys)", m.Slot, m.From, m.To, keys),
		fmt.Sprintf("%s CLUSTER SETSLOT %d IMPORTING %s", cli(th, tp), m.Slot, ids[m.From]),
		fmt.Sprintf("%s CLUSTER SETSLOT %d MIGRATING %s", cli(fh, fp), m.Slot, ids[m.To]),
		fmt.Sprintf(`while k=$(%s CLUSTER GETKEYSINSLOT %d 100) && [ -n "$k" ]; do %s MIGRATE %s %s "" 0 5000 KEYS $k || break; done`,
			cli(fh, fp), m.Slot, cli(fh, fp), th, tp),
		fmt.Sprintf("%s CLUSTER SETSLOT %d NODE %s", cli(th, tp), m.Slot, ids[m.To]),
		fmt.Sprintf("%s CLUSTER SETSLOT %d NODE %s", cli(fh, fp), m.Slot, ids[m.To]),
	}
}

func printPlan(w io.Writer, p jsonPlan) {
	fmt.Fprintf(w, "emqtop rebalance: by %s, every primary within ±%.0f%% of the mean share · %d move%s\n",
		p.By, 100*p.Tolerance, len(p.Moves), map[bool]string{true: "", false: "s"}[len(p.Moves) == 1])
	addrs := make([]string, 0, len(p.Before))
	for a := range p.Before {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	t := table{left: map[int]bool{0: true}}
	t.row("PRIMARY", "BEFORE", "AFTER")
	for _, a := range addrs {
		t.row(textgate.Text(a), fmt.Sprintf("%.1f%%", 100*p.Before[a]), fmt.Sprintf("%.1f%%", 100*p.After[a]))
	}
	fmt.Fprintln(w)
	t.write(w)
	if p.WhyNot != "" {
		fmt.Fprintf(w, "\nnot within the bound: %s", textgate.Text(p.WhyNot))
		if len(p.HotQueues) > 0 {
			qs := make([]string, len(p.HotQueues))
			for i, q := range p.HotQueues {
				qs[i] = textgate.Bounded(q, 40)
			}
			fmt.Fprintf(w, "; its queues: %s", strings.Join(qs, ", "))
		}
		fmt.Fprintln(w)
	}
	if len(p.Moves) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s.\n\n", p.Note)
	for _, c := range p.Commands {
		fmt.Fprintln(w, textgate.Text(c))
	}
}
