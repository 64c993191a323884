package commands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// jsonTrend is a queue's (or the totals') derived figures in --watch: net
// flows (EchoMQ counts no enqueues or acks, so none is throughput).
type jsonTrend struct {
	PendingNetPerS float64 `json:"pending_net_per_s"`
	ActiveNetPerS  float64 `json:"active_net_per_s"`
	Direction      string  `json:"direction"` // growing, shrinking, steady, or "–" before 10s of past
	EmptyInS       float64 `json:"empty_in_s,omitempty"`
	RateOverS      float64 `json:"rate_over_s,omitempty"`
	ExpiredForS    float64 `json:"expired_for_s,omitempty"`
	ExpiredAtLeast bool    `json:"expired_for_at_least,omitempty"`
}

func trendJSON(t model.Trend) *jsonTrend {
	return &jsonTrend{PendingNetPerS: t.PendingNet, ActiveNetPerS: t.ActiveNet, Direction: t.Direction.String(),
		EmptyInS: t.EmptyIn.Seconds(), RateOverS: t.RateOver.Seconds(), ExpiredForS: t.SinceExpiredZero.Seconds(),
		ExpiredAtLeast: t.AtLeast}
}

// watchLine is one poll of the stream: the --once schema, each queue's
// trend, the totals' trend, and what the poll read.
type watchLine struct {
	jsonSnapshot
	Seq int `json:"seq"`
	// Read is full (every occupied slot) or changes (the slots that needed
	// it); ReadWhy counts this poll's scripts by reason (full, dirty,
	// deadline, sweep, detail, new, unproven); Carried the queues whose
	// last reading stands, nothing of them having changed.
	Read        string         `json:"read"`
	ReadWhy     map[string]int `json:"read_why"`
	Carried     int            `json:"carried"`
	TotalsTrend *jsonTrend     `json:"totals_trend"`
	// QueuesAre says which queues the line carries: "all", or "changed"
	// (those whose figures changed since the line before, and Gone the
	// names it no longer has); see watchdelta.go.
	QueuesAre string    `json:"queues_are"`
	Gone      *[]string `json:"gone,omitempty"` // on the lines of changes only

}

// errGone: the reader of the stream went away (a closed pipe).
var errGone = errors.New("the reader is gone")

// runWatch writes one JSON object a poll, a line each, at the interval,
// until SIGTERM, SIGINT or a closed pipe, each of which ends it cleanly
// (exit 0). A poll that fails is a line with its error, and the stream
// goes on.
func runWatch(cfg poller.Config, opt poller.Options, interval time.Duration, whole bool, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt, syscall.SIGPIPE)
	defer stop()
	LimitMemory() // as the dashboard: it keeps its history as long
	p, closeFn, err := openPoller(cfg, opt)
	if err != nil {
		complain(stderr, "emqtop", err)
		return exitError
	}
	defer closeFn()
	if err := p.DiscoverAll(ctx); err != nil && ctx.Err() == nil {
		complain(stderr, "emqtop", err)
		return exitError
	}
	return watchLoop(ctx, p, interval, &deltas{whole: whole}, stdout, stderr)
}

// source is what the stream polls: the poller, or a test's.
type snapshotter interface {
	Poll(ctx context.Context) (*model.Snapshot, error)
}

func watchLoop(ctx context.Context, p snapshotter, interval time.Duration, d *deltas, stdout, stderr io.Writer) int {
	next := time.Now()
	for seq := 1; ctx.Err() == nil; seq++ {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		snap, err := p.Poll(pctx)
		cancel()
		if ctx.Err() != nil {
			break
		}
		if err := writeWatch(stdout, seq, snap, d, err); err != nil {
			if errors.Is(err, errGone) {
				return exitOK
			}
			complain(stderr, "emqtop", err)
			return exitError
		}
		every := interval // or the longer one the self-load budget asks for
		if snap != nil {
			every = max(every, snap.Poll.MinInterval)
		}
		// a line late (the first of a million queues takes seconds) is
		// not made up for by a burst of polls a few ms apart: the next
		// one is an interval after this one at the latest
		next = next.Add(every)
		if late := time.Now(); next.Before(late) {
			next = late
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Until(next)):
		}
	}
	return exitOK
}

// writeWatch writes one line: the same bytes as json.Marshal of the whole
// line through the text gate, its queues marshalled one at a time into the
// line's place for them (the first line of a million queues, made whole
// and then gated, was three copies of 300 MB: 2 GB of RSS).
func writeWatch(w io.Writer, seq int, snap *model.Snapshot, d *deltas, pollErr error) error {
	if pollErr != nil {
		b, err := json.Marshal(struct {
			Seq   int    `json:"seq"`
			Error string `json:"error"`
		}{seq, pollErr.Error()})
		if err != nil {
			return fmt.Errorf("json: %w", err)
		}
		return gone(w.Write(append(textgate.JSON(b), '\n')))
	}
	idx, goneNames, are := d.pick(snap)
	l := watchLine{jsonSnapshot: toJSON(snap, []int{}), Seq: seq, Read: snap.Poll.Read, ReadWhy: snap.Poll.Why, Carried: snap.Poll.Carried,
		TotalsTrend: trendJSON(snap.TotalTrend), QueuesAre: are}
	if goneNames != nil {
		l.Gone = &goneNames
	}
	if l.ReadWhy == nil {
		l.ReadWhy = map[string]int{}
	}
	head, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	head = textgate.JSON(head)
	// the queues' place: the first "queues":[] of the line, the nodes'
	// "queues" being numbers (and a string's quotes escaped)
	at := bytes.Index(head, []byte(`"queues":[]`))
	if at < 0 {
		return fmt.Errorf("json: no place for the queues in the line")
	}
	at += len(`"queues":[`)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:at])
	var gated []byte
	for k, i := range idx {
		q := snap.Queues.At(i)
		jq := queueJSON(snap, q)
		jq.Trend = trendJSON(snap.Trend(q))
		b, err := json.Marshal(jq)
		if err != nil {
			return fmt.Errorf("json: %w", err)
		}
		if k > 0 {
			bw.WriteByte(',')
		}
		gated = textgate.AppendJSON(gated[:0], b)
		bw.Write(gated)
	}
	bw.Write(head[at:])
	bw.WriteByte('\n')
	return gone(0, bw.Flush())
}

// gone is err as writeWatch says it: errGone when the reader went away.
func gone(_ int, err error) error {
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)) {
		return errGone
	}
	return err
}
