package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// The --once --json schema. Field names are a contract: scripts read them.
type jsonSnapshot struct {
	ServerTimeMs int64         `json:"server_time_ms"`
	Version      string        `json:"version"`
	Nodes        []jsonNode    `json:"nodes"`
	Queues       []jsonQueue   `json:"queues"`
	ForeignKeys  []jsonForeign `json:"foreign_keys"`
	ForeignCount int           `json:"foreign_count"`
	Notes        []string      `json:"notes"`
	Poll         jsonPoll      `json:"poll"`
}

type jsonNode struct {
	Addr      string    `json:"addr"`
	ID        string    `json:"id"`
	Role      string    `json:"role"`
	Primary   string    `json:"primary_id,omitempty"`
	Health    string    `json:"health"`
	Server    string    `json:"server,omitempty"`
	Slots     [][2]int  `json:"slots"`
	Queues    int       `json:"queues"`
	Pending   int64     `json:"pending"`
	Active    int64     `json:"active"`
	Expired   int64     `json:"expired"`
	LatencyMs float64   `json:"latency_ms"`
	Error     string    `json:"error"`
	Migrating []uint16  `json:"migrating,omitempty"`
	Cost      *jsonCost `json:"cost,omitempty"`
}

type jsonCost struct {
	Scripts    int `json:"scripts"`
	Commands   int `json:"commands"`
	RoundTrips int `json:"round_trips"`
}

type jsonQueue struct {
	Name               string    `json:"name"`
	Slot               uint16    `json:"slot"`
	Node               string    `json:"node"`
	Pending            int64     `json:"pending"`
	Active             int64     `json:"active"`
	Scheduled          int64     `json:"scheduled"`
	Expired            int64     `json:"expired"`
	OldestPendingAgeMs int64     `json:"oldest_pending_age_ms"`
	Error              string    `json:"error"`
	Stale              bool      `json:"stale,omitempty"`
	PendingJobs        []jsonJob `json:"pending_jobs,omitempty"`
	ActiveJobs         []jsonJob `json:"active_jobs,omitempty"`
}

type jsonJob struct {
	ID         string `json:"id"`
	Valid      bool   `json:"valid"`
	Score      int64  `json:"score"`
	Attempts   *int64 `json:"attempts,omitempty"`
	Unreadable string `json:"attempts_unreadable,omitempty"`
}

type jsonForeign struct {
	Key    string `json:"key"`
	Reason string `json:"reason"`
}

type jsonPoll struct {
	DurationMs float64 `json:"duration_ms"`
	Scripts    int     `json:"scripts"`
	Commands   int     `json:"commands"`
	RoundTrips int     `json:"round_trips"`
}

func toJSON(s *model.Snapshot) jsonSnapshot {
	out := jsonSnapshot{ServerTimeMs: s.ServerTimeMs, Version: s.Version, ForeignCount: s.ForeignCount,
		Nodes: []jsonNode{}, Queues: []jsonQueue{}, ForeignKeys: []jsonForeign{}, Notes: s.Notes,
		Poll: jsonPoll{DurationMs: ms(s.Poll.Duration), Scripts: s.Poll.Scripts, Commands: s.Poll.Commands, RoundTrips: s.Poll.RoundTrips}}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, n := range s.Nodes {
		j := jsonNode{Addr: n.Addr, ID: n.ID, Role: n.Role, Primary: n.PrimaryID, Health: n.Health, Server: n.Server,
			Slots: [][2]int{}, Queues: n.Queues, Pending: n.Pending, Active: n.Active, Expired: n.Expired,
			LatencyMs: ms(n.Latency), Error: n.Err, Migrating: n.Migrating}
		for _, r := range n.Slots {
			j.Slots = append(j.Slots, [2]int{int(r.Lo), int(r.Hi)})
		}
		if n.Trips > 0 {
			j.Cost = &jsonCost{Scripts: n.Scripts, Commands: n.Commands, RoundTrips: n.Trips}
		}
		out.Nodes = append(out.Nodes, j)
	}
	for _, q := range s.Queues {
		jq := jsonQueue{Name: q.Name, Slot: q.Slot, Node: q.Node, Pending: q.Pending, Active: q.Active,
			Scheduled: q.Scheduled, Expired: q.Expired, OldestPendingAgeMs: q.OldestPendingAgeMs, Error: q.Err, Stale: q.Stale}
		for _, j := range q.PendingJobs {
			jq.PendingJobs = append(jq.PendingJobs, jsonJob{ID: j.ID, Valid: j.Valid, Score: j.Score})
		}
		for _, j := range q.ActiveJobs {
			jj := jsonJob{ID: j.ID, Valid: j.Valid, Score: j.Score, Unreadable: j.AttemptsRaw}
			if j.AttemptsOK {
				a := j.Attempts
				jj.Attempts = &a
			}
			jq.ActiveJobs = append(jq.ActiveJobs, jj)
		}
		out.Queues = append(out.Queues, jq)
	}
	for _, f := range s.ForeignKeys {
		out.ForeignKeys = append(out.ForeignKeys, jsonForeign{Key: f.Key, Reason: f.Reason})
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// runOnce takes one snapshot after a whole discovery pass and prints it.
// Exit status: 0 every node answered, 2 some did not, 1 none could.
func runOnce(cfg poller.Config, opt poller.Options, asJSON bool, stdout, stderr io.Writer) int {
	c, err := poller.Connect(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "emqtop:", safe.Text(err.Error()))
		return exitError
	}
	defer c.Close()
	opt.DetailAll = true
	p := poller.New(c, opt)
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := p.DiscoverAll(ctx); err != nil {
		fmt.Fprintln(stderr, "emqtop:", safe.Text(err.Error()))
		return exitError
	}
	snap, err := p.Poll(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "emqtop:", safe.Text(err.Error()))
		return exitError
	}
	if asJSON {
		b, _ := json.MarshalIndent(toJSON(snap), "", "  ")
		stdout.Write(safe.JSON(b))
		fmt.Fprintln(stdout)
	} else {
		printTable(stdout, snap)
	}
	up, total := snap.NodesUp()
	for _, n := range snap.Nodes {
		if n.Err != "" {
			fmt.Fprintf(stderr, "emqtop: node %s: %s\n", n.Addr, safe.Text(n.Err))
		}
	}
	switch {
	case up == 0:
		return exitError
	case up < total:
		return exitPartial
	}
	return exitOK
}

func printTable(w io.Writer, s *model.Snapshot) {
	p, a, e := s.Totals()
	up, total := s.NodesUp()
	version := s.Version
	if version == "" {
		version = "unset"
	}
	fmt.Fprintf(w, "%s · %d/%d primaries · %d queues · %d pending · %d active · %d expired · fence %s · server time %s\n",
		safe.Text(s.Target), up, total, len(s.Queues), p, a, e, safe.Text(version),
		time.UnixMilli(s.ServerTimeMs).UTC().Format("2006-01-02 15:04:05.000Z"))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "NODE\tROLE\tSLOTS\tQUEUES\tPENDING\tACTIVE\tEXPIRED\tLATENCY\tSTATUS\t")
	for _, n := range s.Nodes {
		status := n.Health
		if n.Err != "" {
			status = "error: " + safe.Bounded(n.Err, 60)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", n.Addr, n.Role, n.SlotCount(), n.Queues,
			n.Pending, n.Active, n.Expired, n.Latency.Round(10*time.Microsecond), status)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "QUEUE\tSLOT\tNODE\tPENDING\tACTIVE\tSCHEDULED\tEXPIRED\tOLDEST\tERROR\t")
	for _, q := range s.Queues {
		oldest := "–"
		if q.OldestPendingAgeMs >= 0 {
			oldest = (time.Duration(q.OldestPendingAgeMs) * time.Millisecond).Round(time.Second).String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", safe.Bounded(q.Name, 60), q.Slot, q.Node,
			q.Pending, q.Active, q.Scheduled, q.Expired, oldest, safe.Bounded(q.Err, 80))
	}
	tw.Flush()
	if s.ForeignCount > 0 {
		fmt.Fprintf(w, "\n%d foreign keys (look like EchoMQ's, break its grammar):\n", s.ForeignCount)
		for _, f := range s.ForeignKeys[:min(10, len(s.ForeignKeys))] {
			fmt.Fprintf(w, "  %s  %s\n", safe.Bounded(f.Key, 80), safe.Bounded(f.Reason, 120))
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintln(w, "note:", safe.Text(n))
	}
	fmt.Fprintf(w, "\npoll: %s, %d scripts, %d commands, %d round trips\n",
		s.Poll.Duration.Round(10*time.Microsecond), s.Poll.Scripts, s.Poll.Commands, s.Poll.RoundTrips)
}
