package commands

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/echomq/emqtop/internal/textgate"
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
	// a primary's way of polling: tracking (reads what changed), or full
	// and why
	Tracking bool   `json:"tracking"`
	Full     string `json:"full,omitempty"`
	// the server's own load over its slots (CLUSTER SLOT-STATS), totals
	// only: never a figure per slot
	Load *jsonLoad `json:"slot_stats,omitempty"`
}

type jsonLoad struct {
	Mode       string   `json:"mode"` // full, keys, none, error
	Why        string   `json:"why,omitempty"`
	Keys       int64    `json:"keys"`
	CPUUsec    *float64 `json:"cpu_usec_per_s"`      // null until two reads give a rate
	NetBytes   *float64 `json:"network_bytes_per_s"` // in and out
	ReadCostMs float64  `json:"read_cost_ms"`        // the server time of one read of its slots
}

type jsonCost struct {
	Scripts    int `json:"scripts"`
	Commands   int `json:"commands"`
	RoundTrips int `json:"round_trips"`
}

type jsonQueue struct {
	Name               string     `json:"name"`
	Slot               uint16     `json:"slot"`
	Node               string     `json:"node"`
	Pending            int64      `json:"pending"`
	Active             int64      `json:"active"`
	Scheduled          int64      `json:"scheduled"`
	Expired            int64      `json:"expired"`
	OldestPendingAgeMs int64      `json:"oldest_pending_age_ms"`
	Error              string     `json:"error"`
	Stale              bool       `json:"stale,omitempty"`
	PendingJobs        *[]jsonJob `json:"pending_jobs,omitempty"` // only with --jobs
	ActiveJobs         *[]jsonJob `json:"active_jobs,omitempty"`
	Trend              *jsonTrend `json:"trend,omitempty"` // only with --watch
}

type jsonJob struct {
	ID         string `json:"id"`
	Valid      bool   `json:"valid"`
	Score      *int64 `json:"score"`                // null when the score is no time: score_note says why
	ScoreNote  string `json:"score_note,omitempty"` // "+inf: no deadline", "-inf", "past any time"
	Attempts   *int64 `json:"attempts,omitempty"`
	Unreadable string `json:"attempts_unreadable,omitempty"` // why, in words: no attempts field, not an integer, …
	Raw        string `json:"attempts_raw,omitempty"`        // the field's text when it is not an integer
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

// toJSON is the snapshot in the --once schema; with idx, of those queues
// alone (a line of --watch carries those that changed).
func toJSON(s *model.Snapshot, idx []int) jsonSnapshot {
	out := jsonSnapshot{ServerTimeMs: s.ServerTimeMs, Version: s.Version, ForeignCount: s.ForeignCount,
		Nodes: []jsonNode{}, Queues: []jsonQueue{}, ForeignKeys: []jsonForeign{}, Notes: s.Notes,
		Poll: jsonPoll{DurationMs: ms(s.Poll.Duration), Scripts: s.Poll.Scripts, Commands: s.Poll.Commands, RoundTrips: s.Poll.RoundTrips}}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, n := range s.Nodes {
		j := jsonNode{Addr: n.Addr, ID: n.ID, Role: n.Role, Primary: n.PrimaryID, Health: n.Health, Server: n.Server,
			Slots: [][2]int{}, Queues: n.Queues, Pending: n.Pending, Active: n.Active, Expired: n.Expired,
			LatencyMs: ms(n.Latency), Error: n.Err, Migrating: n.Migrating, Tracking: n.Tracking, Full: n.Full}
		for _, r := range n.Slots {
			j.Slots = append(j.Slots, [2]int{int(r.Lo), int(r.Hi)})
		}
		if n.Trips > 0 {
			j.Cost = &jsonCost{Scripts: n.Scripts, Commands: n.Commands, RoundTrips: n.Trips}
		}
		if s.Load != nil {
			if st, ok := s.Load.Nodes[n.Addr]; ok {
				jl := &jsonLoad{Mode: st.Mode, Why: st.Why, Keys: st.Keys, ReadCostMs: ms(st.Cost)}
				if st.Mode == model.SlotStatsFull && st.RatesOver > 0 {
					cpu, net := st.CPU, st.Net
					jl.CPUUsec, jl.NetBytes = &cpu, &net
				}
				j.Load = jl
			}
		}
		out.Nodes = append(out.Nodes, j)
	}
	if idx == nil {
		idx = make([]int, s.Queues.Len())
		for i := range idx {
			idx[i] = i
		}
	}
	for _, i := range idx {
		out.Queues = append(out.Queues, queueJSON(s, s.Queues.At(i)))
	}
	for _, f := range s.ForeignKeys {
		out.ForeignKeys = append(out.ForeignKeys, jsonForeign{Key: f.Key, Reason: f.Reason})
	}
	return out
}

// queueJSON is one queue of s in the --once schema.
func queueJSON(s *model.Snapshot, q *model.Queue) jsonQueue {
	jq := jsonQueue{Name: q.Name, Slot: q.Slot, Node: q.Node.Addr(), Pending: q.Pending, Active: q.Active,
		Scheduled: q.Scheduled, Expired: q.Expired, OldestPendingAgeMs: s.OldestAge(q), Error: q.Err, Stale: q.Stale}
	if q.Detail {
		pending, active := []jsonJob{}, []jsonJob{}
		for _, j := range q.PendingJobs() {
			pending = append(pending, jsonJob{ID: j.ID, Valid: j.Valid, Score: scoreJSON(j), ScoreNote: scoreNote(j, false)})
		}
		for _, j := range q.ActiveJobs() {
			jj := jsonJob{ID: j.ID, Valid: j.Valid, Score: scoreJSON(j), ScoreNote: scoreNote(j, true), Unreadable: j.AttemptsWhy, Raw: j.AttemptsRaw}
			if j.AttemptsOK {
				a := j.Attempts
				jj.Attempts = &a
			}
			active = append(active, jj)
		}
		jq.PendingJobs, jq.ActiveJobs = &pending, &active
	}
	return jq
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// openPoller connects and makes a poller; close ends both.
func openPoller(cfg poller.Config, opt poller.Options) (p *poller.Poller, close func(), err error) {
	c, err := poller.Connect(cfg)
	if err != nil {
		return nil, nil, err
	}
	p = poller.New(c, opt)
	return p, func() { p.Close(); c.Close() }, nil
}

// runOnce takes one snapshot after a whole discovery pass and prints it.
// Exit status: 0 every node answered, 2 some did not, 1 none could.
func runOnce(cfg poller.Config, opt poller.Options, asJSON bool, stdout, stderr io.Writer) int {
	limitMemoryWith(onceRoom) // a million queues take tens of seconds: the heap not left to double
	opt.Once = true
	p, closeFn, err := openPoller(cfg, opt)
	if err != nil {
		complain(stderr, "emqtop", err)
		return exitError
	}
	defer closeFn()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := p.DiscoverAll(ctx); err != nil {
		complain(stderr, "emqtop", err)
		return exitError
	}
	snap, err := p.Poll(ctx)
	if err != nil {
		complain(stderr, "emqtop", err)
		return exitError
	}
	if asJSON {
		writeJSON(stdout, snap)
	} else {
		printTable(stdout, snap)
	}
	up, total := snap.NodesUp()
	for _, n := range snap.Nodes {
		if n.Err != "" {
			fmt.Fprintf(stderr, "emqtop: node %s: %s\n", textgate.Text(n.Addr), textgate.Text(n.Err))
		}
	}
	unread, first := 0, ""
	for _, q := range snap.Queues.All() {
		if q.Unread {
			if unread++; first == "" {
				first = textgate.Text(q.Name) + ": " + textgate.Text(q.Err)
			}
		}
	}
	if unread > 0 {
		fmt.Fprintf(stderr, "emqtop: %s could not be read (%s)\n", model.Count(int64(unread), "queue", "queues"), first)
	}
	switch {
	case up == 0:
		return exitError
	case up < total || unread > 0:
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
	fmt.Fprintf(w, "%s · %d/%d primaries · %s · %s pending · %s active · %s expired · protocol %s · server time %s\n",
		textgate.Text(s.Target), up, total, model.Count(int64(s.Queues.Len()), "queue", "queues"), model.Commas(p), model.Commas(a), model.Commas(e), textgate.Text(version),
		time.UnixMilli(s.ServerTimeMs).UTC().Format("2006-01-02 15:04:05.000Z"))
	fmt.Fprintln(w)
	nodes := table{left: map[int]bool{0: true, 1: true, 8: true}}
	nodes.row("NODE", "ROLE", "SLOTS", "QUEUES", "PENDING", "ACTIVE", "EXPIRED", "LATENCY", "STATUS")
	for _, n := range s.Nodes {
		status := n.Health
		if n.Err != "" {
			status = "error: " + textgate.Bounded(n.Err, 60)
		}
		nodes.row(textgate.Bounded(n.Addr, 60), n.Role, itoa(n.SlotCount()), itoa(n.Queues), itoa(n.Pending),
			itoa(n.Active), itoa(n.Expired), n.Latency.Round(10*time.Microsecond).String(), status)
	}
	nodes.write(w)
	fmt.Fprintln(w)
	queues := table{left: map[int]bool{0: true, 2: true, 8: true}}
	queues.row("QUEUE", "SLOT", "NODE", "PENDING", "ACTIVE", "SCHEDULED", "EXPIRED", "OLDEST", "ERROR")
	for _, q := range s.Queues.All() {
		oldest := "–"
		if age := s.OldestAge(q); age >= 0 {
			oldest = (time.Duration(age) * time.Millisecond).Round(time.Second).String()
		}
		queues.row(textgate.Bounded(q.Name, 60), itoa(q.Slot), textgate.Bounded(q.Node.Addr(), 60), itoa(q.Pending), itoa(q.Active),
			itoa(q.Scheduled), itoa(q.Expired), oldest, textgate.Bounded(q.Err, 80))
	}
	queues.write(w)
	if s.ForeignCount > 0 {
		fmt.Fprintf(w, "\n%s (look like EchoMQ's, break its grammar):\n", model.Count(int64(s.ForeignCount), "foreign key", "foreign keys"))
		for _, f := range s.ForeignKeys[:min(10, len(s.ForeignKeys))] {
			fmt.Fprintf(w, "  %s  %s\n", textgate.Bounded(f.Key, 80), textgate.Bounded(f.Reason, 120))
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintln(w, "note:", textgate.Text(n))
	}
	fmt.Fprintf(w, "\npoll: %s, %d scripts, %d commands, %d round trips\n",
		s.Poll.Duration.Round(10*time.Microsecond), s.Poll.Scripts, s.Poll.Commands, s.Poll.RoundTrips)
}

func itoa[T int | int64 | uint16](n T) string { return strconv.FormatInt(int64(n), 10) }

// scoreJSON is a job's score, or null when it is no time (±inf, 1e300):
// int64 of +inf is -9223372036854775808, which a reader would take for one.
func scoreJSON(j model.Job) *int64 {
	if j.ScoreOff != 0 {
		return nil
	}
	s := j.Score
	return &s
}

func scoreNote(j model.Job, active bool) string {
	switch {
	case j.ScoreOff == 0:
		return ""
	case active:
		return model.DeadlineWords(j.ScoreOff)
	case j.ScoreOff > 0:
		return "+inf, or past any time"
	}
	return "-inf, or before any time"
}
