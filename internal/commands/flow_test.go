package commands

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/poller"
	"github.com/echomq/emqtop/theme"
	"github.com/echomq/emqtop/ui"
	"github.com/valkey-io/valkey-go"
)

func keys(tm *teatest.TestModel, ks ...string) {
	for _, k := range ks {
		switch k {
		case "enter":
			tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
		case "shift+tab":
			tm.Send(tea.KeyMsg{Type: tea.KeyShiftTab})
		case "down":
			tm.Send(tea.KeyMsg{Type: tea.KeyDown})
		default:
			tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
		}
	}
}

// waitFor waits until the output holds every one of ss. What it read is
// consumed, so strings that may come in one frame are waited for in one
// call: a later call never sees a line drawn before it.
func waitFor(t *testing.T, tm *teatest.TestModel, ss ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, s := range ss {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// dashboardOn runs the whole dashboard on the cluster in a w×h teatest
// terminal, polling every 200ms, with actions (audited to a temporary log)
// or read-only.
func dashboardOn(t *testing.T, cl *testcluster.Cluster, timeout time.Duration, w, h int, actions bool) *teatest.TestModel {
	t.Helper()
	cfg := poller.Config{Addrs: []string{cl.Nodes[0].Addr()}, Timeout: timeout}
	pc, err := poller.Connect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pc.Close)
	p := poller.New(pc, poller.Options{Target: cfg.Target()})
	t.Cleanup(p.Close)
	opt := ui.Options{Target: cfg.Target(), Interval: 200 * time.Millisecond, ReadOnly: !actions}
	if actions {
		acts, err := newActions(pc, cfg, filepath.Join(t.TempDir(), "audit.log"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { acts.Close() })
		opt.Actions = acts
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	th, _ := theme.New(r, "dark")
	return teatest.NewTestModel(t, ui.New(p, th, opt), teatest.WithInitialTermSize(w, h))
}

// TestDashboardFlowsOnACluster runs the whole program on a real cluster:
// it shows the queues, a stuck job is requeued with r and leaves the active
// pane at the next poll, D with a wrong name drains nothing, D with the
// name drains the queue.
func TestDashboardFlowsOnACluster(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	q := "orders"
	for i := 0; i < 1500; i++ {
		if _, err := echomq.Enqueue(bg, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	stuck, _, _ := echomq.Claim(bg, c, q, time.Millisecond)
	vtest.UntilExpired(t, c, q, 1)

	tm := dashboardOn(t, cl, 2*time.Second, 120, 40, true)

	waitFor(t, tm, stuck.ID) // orders is selected, its stuck job in the active pane
	keys(tm, "shift+tab", "r")
	waitFor(t, tm, "Requeue this job?")
	keys(tm, "y")
	waitFor(t, tm, "requeued "+stuck.ID, "no active jobs")
	k, _ := keyspace.KeysOf(q)
	if n, _ := c.Do(bg, c.B().Zcard().Key(k.Active).Build()).AsInt64(); n != 0 {
		t.Fatalf("%d active after the requeue", n)
	}

	keys(tm, "D")
	waitFor(t, tm, "type the queue's name")
	keys(tm, "w", "r", "o", "n", "g", "enter")
	waitFor(t, tm, "nothing was drained")
	if n, _ := c.Do(bg, c.B().Zcard().Key(k.Pending).Build()).AsInt64(); n != 1500 {
		t.Fatalf("a wrong name drained: %d pending", n)
	}
	keys(tm, "esc", "D", "o", "r", "d", "e", "r", "s", "enter")
	waitFor(t, tm, "drained 1500 pending jobs of orders")
	if n, _ := c.Do(bg, c.B().Zcard().Key(k.Pending).Build()).AsInt64(); n != 0 {
		t.Fatalf("%d pending after the drain", n)
	}
	keys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(*ui.Model)
	if s := final.Snapshot(); s == nil || s.Queue(q) == nil || s.Queue(q).Active != 0 {
		t.Error("the final snapshot does not show the requeue")
	}
}

// A primary killed under the running dashboard, on a real cluster: the
// mode turns DEGRADED, the node's row says why in words, its slots are
// hatched in the legend's terms, its queues are flagged.
func TestDashboardShowsADownNode(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	var victim string // a queue on the node that will die
	for i := 0; victim == "" && i < 1000; i++ {
		q := "q" + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		if owner, _ := cl.Owner(int(keyspace.QueueSlot(q))); owner == 1 {
			victim = q
		}
	}
	if victim == "" {
		t.Fatal("no queue name found on node 1")
	}
	for _, q := range []string{"orders", victim} {
		if _, err := echomq.Enqueue(bg, c, q, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	tm := dashboardOn(t, cl, time.Second, 200, 50, false)
	waitFor(t, tm, "LIVE", victim)
	cl.Kill(1)
	waitFor(t, tm, "DEGRADED 1/3 down", "down: connection refused", "/ down", "node down")
	keys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// f on a real cluster: a job id typed into the find is found among other
// keys on whichever primary holds it, and its detail opens with its place
// in pending and the fields of its row.
func TestDashboardFindsAJob(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	var cmds valkey.Commands
	for i := 0; i < 3000; i++ {
		cmds = append(cmds, c.B().Set().Key(fmt.Sprintf("other:%d", i)).Value("x").Build())
	}
	for _, r := range c.DoMulti(bg, cmds...) {
		if err := r.Error(); err != nil {
			t.Fatal(err)
		}
	}
	var id string
	for i := 0; i < 3; i++ {
		var err error
		if id, err = echomq.Enqueue(bg, c, "needle", []byte(`{"n":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	row, _ := keyspace.JobKey("needle", id)
	if err := c.Do(bg, c.B().Hset().Key(row).FieldValue().FieldValue("trace_id", "abc-123").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	tm := dashboardOn(t, cl, 2*time.Second, 160, 50, false)
	waitFor(t, tm, "LIVE", "needle")
	keys(tm, "f")
	waitFor(t, tm, "Find a job by its id")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(id), Paste: true})
	keys(tm, "enter")
	waitFor(t, tm, "3rd of 3 in pending", "trace_id", "abc-123")
	keys(tm, "q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
