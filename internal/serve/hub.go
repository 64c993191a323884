// Package serve is `emqtop serve`: one poller for many operators. The hub
// polls; each SSH session is a dashboard of its own (selection, sort,
// focus, size, theme, renderer) whose Source is the hub: a session reads
// the latest snapshot, shared and never written, and the hub reads the
// union of what the sessions have selected. The cluster's load grows with
// the distinct queues selected, never with the number of sessions.
package serve

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

// Bounds on what sessions may ask of the poller.
const (
	// MaxDetailPerSession and MaxDetail bound the queues read in detail
	// (their jobs and histogram): a session selects one queue at a time,
	// so eight is generous; 64 over all sessions bounds the scripts'
	// size whatever the sessions do.
	MaxDetailPerSession = 8
	MaxDetail           = 64
	maxWindow           = time.Hour
)

// Hub runs the one poller and hands its snapshots to the sessions.
type Hub struct {
	p        *poller.Poller
	c        valkey.Client
	interval time.Duration

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced at each new snapshot
	latest   *model.Snapshot
	err      error
	seq      int
	next     int // session ids
	sessions map[int]*want
	stats    Stats
	keep     int // the most poll durations kept between two TakeStats (maxDurations)
}

// want is what one session asks of the poller.
type want struct {
	detail []string
	window time.Duration
}

// Stats are the hub's own figures, for the metrics.
type Stats struct {
	Polls, Errors int
	LastPoll      time.Duration
	Durations     []time.Duration // since the last Take, at most maxDurations
	Dropped       int             // durations left out of Durations since the last Take
}

// maxDurations bounds the durations kept between two takes by default
// (Hub.keep): with no metrics (nothing takes them) they were kept for
// ever, a slow leak; a scraper that stops scraping costs nothing either.
const maxDurations = 4096

// NewHub makes a hub on a poller and its client (for the job reads).
func NewHub(p *poller.Poller, c valkey.Client, interval time.Duration) *Hub {
	if interval <= 0 {
		interval = time.Second
	}
	return &Hub{p: p, c: c, interval: interval, changed: make(chan struct{}), sessions: map[int]*want{}, keep: maxDurations}
}

// Run polls until ctx ends: at each interval, the union of the sessions'
// selections and the widest of their windows.
func (h *Hub) Run(ctx context.Context) {
	next := time.Now()
	for {
		h.pollOnce(ctx)
		// the interval, or the longer one the self-load budget asks for
		every := h.interval
		h.mu.Lock()
		if h.latest != nil {
			every = max(every, h.latest.Poll.MinInterval)
		}
		h.mu.Unlock()
		next = next.Add(every)
		if d := time.Until(next); d < 0 {
			next = time.Now() // a poll longer than the interval: no catching up
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
	}
}

func (h *Hub) pollOnce(ctx context.Context) {
	detail, window, n := h.union()
	h.p.SetDetail(detail...)
	h.p.SetWindow(window)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	start := time.Now()
	snap, err := h.p.Poll(pctx)
	cancel()
	took := time.Since(start)
	if snap != nil { // a fresh snapshot of its own: no session holds it yet
		snap.Sessions = n
		snap.Notes = append(snap.Notes, fmt.Sprintf("emqtop serve: one poller for %d session%s, %d queue%s read in detail",
			n, plural(n), len(detail), plural(len(detail))))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stats.Polls++
	h.stats.LastPoll = took
	if len(h.stats.Durations) < h.keep {
		h.stats.Durations = append(h.stats.Durations, took)
	} else {
		h.stats.Dropped++
	}
	if err != nil {
		h.stats.Errors++
		h.err = err
	} else {
		h.latest, h.err = snap, nil
	}
	h.seq++
	close(h.changed)
	h.changed = make(chan struct{})
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// union is every session's detail (bounded), the widest window, and how
// many sessions there are.
func (h *Hub) union() ([]string, time.Duration, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := map[string]bool{}
	window := time.Minute
	if len(h.sessions) > 0 {
		window = 0
	}
	ids := make([]int, 0, len(h.sessions))
	for id := range h.sessions {
		ids = append(ids, id)
	}
	sort.Ints(ids) // the oldest sessions first when the bound bites
	for _, id := range ids {
		w := h.sessions[id]
		for _, q := range w.detail {
			if len(set) < MaxDetail {
				set[q] = true
			}
		}
		window = max(window, w.window)
	}
	out := make([]string, 0, len(set))
	for q := range set {
		out = append(out, q)
	}
	sort.Strings(out)
	return out, min(max(window, 5*time.Second), maxWindow), len(h.sessions)
}

// Latest is the last snapshot, its sequence, and the last poll's error.
func (h *Hub) Latest() (*model.Snapshot, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.latest, h.seq, h.err
}

// TakeStats returns the hub's figures and the poll durations since the
// last call.
func (h *Hub) TakeStats() (Stats, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stats
	h.stats.Durations, h.stats.Dropped = nil, 0
	return s, len(h.sessions)
}

// Sessions is how many sessions are attached.
func (h *Hub) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// Attach makes a session's Source on the hub; Detach it when it ends.
func (h *Hub) Attach() *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.sessions[h.next] = &want{window: time.Minute}
	return &Session{h: h, id: h.next}
}

// Session is one dashboard's Source on the hub.
type Session struct {
	h    *Hub
	id   int
	seen int // the sequence of the last snapshot handed out
}

// Detach removes the session's selections from the hub.
func (s *Session) Detach() {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	delete(s.h.sessions, s.id)
}

// Poll hands out the newest snapshot: one this session has not seen, as
// soon as there is one (latest value wins: a session that asks late skips
// what it missed, and never holds the poller or the other sessions).
func (s *Session) Poll(ctx context.Context) (*model.Snapshot, error) {
	for {
		s.h.mu.Lock()
		snap, seq, err, changed := s.h.latest, s.h.seq, s.h.err, s.h.changed
		s.h.mu.Unlock()
		if seq > s.seen && (snap != nil || err != nil) {
			s.seen = seq
			if err != nil {
				return nil, err
			}
			return snap, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-changed:
		}
	}
}

// SetDetail names the queues this session reads in detail (its selection).
func (s *Session) SetDetail(queues ...string) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if w := s.h.sessions[s.id]; w != nil {
		w.detail = append([]string(nil), queues[:min(len(queues), MaxDetailPerSession)]...)
	}
}

// SetWindow sets this session's timeline span; the hub reads the widest.
func (s *Session) SetWindow(d time.Duration) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if w := s.h.sessions[s.id]; w != nil {
		w.window = d
	}
}

// Job reads one job row, read-only.
func (s *Session) Job(ctx context.Context, queue, id string) (model.JobDetail, error) {
	return s.h.p.Job(ctx, queue, id)
}

// StartFind begins a find of a job by id on the hub's poller.
func (s *Session) StartFind(ctx context.Context, id string) (model.FindSearch, error) {
	return s.h.p.StartFind(ctx, id)
}
