package serve

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/poller"
)

var bg = context.Background()

// hubOn starts a hub on a fresh 3-primary cluster holding three queues:
// orders (3 pending, 1 expired), fills (2 pending) and a name with a bidi
// override (valid, but never shown raw).
func hubOn(t *testing.T) (*Hub, *testcluster.Cluster, context.CancelFunc) {
	t.Helper()
	cl, c := vtest.Cluster(t, 3)
	// two names the gate must keep apart: a real U+202E, and the six
	// characters \u202e typed
	for q, n := range map[string]int{"orders": 4, "fills": 2, "evil\u202eflip": 1, `evil\u202eflip`: 1, "broken": 1} {
		for i := 0; i < n; i++ {
			if _, err := echomq.Enqueue(bg, c, q, []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := echomq.Claim(bg, c, "orders", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// a queue that cannot be read: one active job, its pending key a string
	if _, _, err := echomq.Claim(bg, c, "broken", time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(bg, c.B().Set().Key("emq:{broken}:pending").Value("x").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	cfg := poller.Config{Addrs: []string{cl.Nodes[0].Addr()}, Timeout: 2 * time.Second}
	pc, err := poller.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	// full polls: the scripts of change-driven ones vary with the writes and
	// with the trackers' start, and the test compares scripts a poll
	p := poller.New(pc, poller.Options{Target: cfg.Target(), Full: true})
	t.Cleanup(p.Close)
	if err := p.DiscoverAll(bg); err != nil {
		t.Fatal(err)
	}
	h := NewHub(p, pc, 50*time.Millisecond)
	ctx, cancel := context.WithCancel(bg)
	go h.Run(ctx)
	t.Cleanup(cancel)
	return h, cl, cancel
}

// next waits for the session's next snapshot that satisfies ok.
func next(t *testing.T, s *Session, ok func(*model.Snapshot) bool) *model.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	for {
		snap, err := s.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok(snap) {
			return snap
		}
	}
}

// One poller for many sessions: each session's selection is read in
// detail; thirty sessions on one selection cost the cluster what one does
// (the same scripts a poll), and a session that stops asking holds
// nothing up.
func TestHubSharesOnePoller(t *testing.T) {
	h, _, _ := hubOn(t)
	a, b := h.Attach(), h.Attach()
	a.SetDetail("orders")
	b.SetDetail("fills")
	snap := next(t, a, func(s *model.Snapshot) bool {
		o, f := s.Queue("orders"), s.Queue("fills")
		return o != nil && f != nil && o.Detail && f.Detail
	})
	if o := snap.Queue("orders"); o.Pending != 3 || o.Expired != 1 || len(o.PendingJobs()) != 3 {
		t.Errorf("orders: %+v", o)
	}
	b.Detach()
	one := next(t, a, func(s *model.Snapshot) bool { q := s.Queue("fills"); return q != nil && !q.Detail }).Poll.Scripts

	var many []*Session
	for i := 0; i < 30; i++ {
		s := h.Attach()
		s.SetDetail("orders")
		many = append(many, s)
	}
	thirty := next(t, a, func(s *model.Snapshot) bool {
		return strings.Contains(strings.Join(s.Notes, " "), "31 sessions")
	})
	if thirty.Poll.Scripts != one {
		t.Errorf("thirty sessions on one selection: %d scripts a poll; one session: %d", thirty.Poll.Scripts, one)
	}
	// none of the thirty asks; a still gets every new snapshot
	_, seq0, _ := h.Latest()
	next(t, a, func(*model.Snapshot) bool { return true })
	next(t, a, func(*model.Snapshot) bool { return true })
	if _, seq, _ := h.Latest(); seq < seq0+2 {
		t.Errorf("the hub stalled behind sessions that do not read: seq %d → %d", seq0, seq)
	}
	for _, s := range many {
		s.Detach()
	}
	if h.Sessions() != 1 {
		t.Errorf("%d sessions after the detaches", h.Sessions())
	}
}

// The metrics come from the hub's snapshot: per queue and per node, with
// the poll's figures; a scrape never polls; a hostile queue name is
// escaped.
func TestMetricsFromTheSharedSnapshot(t *testing.T) {
	h, _, _ := hubOn(t)
	s := h.Attach()
	next(t, s, func(s *model.Snapshot) bool { return s.Queue("orders") != nil })
	srv := httptest.NewServer(MetricsHandler(h, func() int { return 7 }, DefaultMetricsQueues))
	defer srv.Close()
	scrape := func() string { return scrapeOf(t, srv) }
	var out string
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ { // scrapes may overlap
		wg.Add(1)
		go func() { defer wg.Done(); scrape() }()
	}
	wg.Wait()
	out = scrape()
	for _, want := range []string{
		`emqtop_queue_jobs{queue="orders",state="pending"} 3`,
		`emqtop_queue_jobs{queue="orders",state="active"} 1`,
		`emqtop_queue_expired_jobs{queue="orders"} 1`,
		`emqtop_queue_jobs{queue="fills",state="pending"} 2`,
		`emqtop_queue_oldest_pending_age_seconds{queue="fills"}`,
		`emqtop_ssh_sessions 7`,
		`emqtop_poll_duration_seconds_count`,
		`emqtop_poll_errors_total 0`,
		`emqtop_snapshot_age_seconds`,
		`queue="evil\\u202eflip"`,
		`queue="evil\\\\u202eflip"`,
		`emqtop_queue_read_error{queue="broken"} 1`,
		`emqtop_label_collisions 0`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the metrics lack %s:\n%s", want, out)
		}
	}
	up := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "emqtop_node_up{") && strings.HasSuffix(l, "} 1") {
			up++
		}
	}
	if up != 3 {
		t.Errorf("%d nodes up in the metrics, want 3:\n%s", up, out)
	}
	// the servers' own load, per node: keys on Valkey 8, none on Redis 7
	name, major, err := testcluster.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out, "emqtop_node_keys{"); (name == "valkey" && major >= 8) != (got == 3) || (got != 0 && got != 3) {
		t.Errorf("%d emqtop_node_keys series on %s %d", got, name, major)
	}
	if strings.Contains(out, `emqtop_queue_jobs{queue="broken"`) || strings.Contains(out, `emqtop_queue_expired_jobs{queue="broken"`) {
		t.Errorf("a queue that could not be read exports counts:\n%s", out)
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "job=") || strings.Contains(out, "slot=") {
		t.Error("a raw escape, or a label per job or slot")
	}
}

// The poll durations kept for the metrics are bounded: serve without
// --metrics (nothing takes them) kept one a poll for ever.
func TestHubKeepsBoundedDurations(t *testing.T) {
	h, _, _ := hubOn(t)
	h.mu.Lock()
	h.keep = 5
	h.mu.Unlock()
	h.TakeStats()
	_, seq0, _ := h.Latest()
	vtest.Until(t, 30*time.Second, "20 polls", func() bool { _, seq, _ := h.Latest(); return seq >= seq0+20 })
	st, _ := h.TakeStats()
	if len(st.Durations) != 5 || st.Dropped < 14 {
		t.Errorf("kept %d durations, dropped %d, after 20 polls with a bound of 5", len(st.Durations), st.Dropped)
	}
}
