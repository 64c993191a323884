package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/echomq/emqtop/theme"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// session is a common of the fixture with n extra queues, the first queue
// selected, as the root would set it.
func session(n int) *common {
	s := fixture(n)
	c := &common{th: asciiTheme("dark"), now: func() time.Time { return fixedNow }, snap: s, fold: model.NewFold(s), mem: newQueueMemory(), tick: testTick}
	c.sel = c.snap.Queue("orders")
	return c
}

func emitted(c *common) []tea.Msg {
	out := c.out
	c.out = nil
	return out
}

// The queue list: movement keeps the selection in sight and scrolls no
// further; the filter takes every key as text until enter or esc.
func TestQueueListUpdate(t *testing.T) {
	cases := []struct {
		keys        []string
		sel, offset int
		filter      string
		filtering   bool
	}{
		{nil, 0, 0, "", false},
		{[]string{"j", "j"}, 2, 0, "", false},
		{[]string{"G"}, 45, 37, "", false},
		{[]string{"G", "k"}, 44, 37, "", false},
		{[]string{"G", "g"}, 0, 0, "", false},
		{[]string{"pgdown"}, 9, 1, "", false},
		{[]string{"/", "f", "i", "l", "enter"}, 0, 0, "fil", false},
		{[]string{"/", "q", "j"}, 0, 0, "qj", true},
		{[]string{"/", "o", "esc"}, 0, 0, "", false},
	}
	for _, tc := range cases {
		c := session(40)
		l := newQueueList(c)
		l.SetSize(120, 12) // 9 rows
		l.refresh()
		l.SetFocus(true)
		for _, k := range tc.keys {
			if k == "/" && !l.filter.capturing() {
				l.startFilter()
				continue
			}
			l.Update(keyMsg(k))
		}
		if l.sel != tc.sel || l.offset != tc.offset || l.filter.Value() != tc.filter || l.filter.capturing() != tc.filtering {
			t.Errorf("%v: sel %d offset %d filter %q filtering %v; want %d %d %q %v", tc.keys, l.sel, l.offset,
				l.filter.Value(), l.filter.capturing(), tc.sel, tc.offset, tc.filter, tc.filtering)
		}
	}
}

func TestQueueListEnterFocusesActive(t *testing.T) {
	c := session(0)
	l := newQueueList(c)
	l.SetSize(100, 10)
	l.refresh()
	l.Update(keyMsg("enter"))
	if out := emitted(c); len(out) != 1 || out[0] != (focusMsg{paneActive}) {
		t.Errorf("enter emitted %v", out)
	}
}

// The job panes: enter opens the job under the cursor; r is the active
// pane's only, and asks for that job with its attempts.
func TestJobsPaneUpdate(t *testing.T) {
	c := session(0)
	act, pend := newJobsPane(c, true), newJobsPane(c, false)
	for _, p := range []*jobsPane{act, pend} {
		p.SetSize(80, 8)
		p.keys.Requeue.SetEnabled(p.active) // as the action table does with write access
	}
	act.Update(keyMsg("j"))
	act.Update(keyMsg("enter"))
	act.Update(keyMsg("r"))
	out := emitted(c)
	if len(out) != 2 {
		t.Fatalf("emitted %v", out)
	}
	if o, ok := out[0].(openJobMsg); !ok || o.job.ID != stuck2ID || !o.active {
		t.Errorf("enter: %+v", out[0])
	}
	if r, ok := out[1].(requeueMsg); !ok || r.job.ID != stuck2ID || r.job.Attempts != 1 {
		t.Errorf("r: %+v", out[1])
	}
	if matches(keyMsg("r"), pend) || !matches(keyMsg("r"), act) {
		t.Error("r must be bound in the active pane only")
	}
	act.keys.Requeue.SetEnabled(false) // read-only
	if matches(keyMsg("r"), act) {
		t.Error("r stays enabled with the actions off")
	}
	// another queue selected: the cursor starts at its first job
	// drawing never moves the cursor (View reset it when the queue
	// changed); the selection moving does, when the root says so
	act.cur = 1
	c.sel = c.snap.Queue("fills")
	act.View()
	if act.cur != 1 {
		t.Errorf("drawing moved the cursor to %d", act.cur)
	}
	act.follow(c.sel)
	if q, _ := act.jobs(); q == nil || act.cur != 0 {
		t.Errorf("cursor %d after the selection moved", act.cur)
	}
}

// The heatmap: the cursor moves by cell and row; enter selects the busiest
// queue under it, or says there is none.
func TestHeatPaneUpdate(t *testing.T) {
	c := session(0)
	h := newHeatPane(c)
	h.SetSize(42, 8) // 40×4 glyph cells
	h.SetFocus(true)
	h.Update(keyMsg("right"))
	first := h.cursor
	if first <= 105 {
		t.Errorf("right from the selection's slot 105: cursor at %d", first)
	}
	h.Update(keyMsg("down"))
	if lo, _ := model.CellRange(model.CellOf(uint16(first), h.cells())+40, h.cells()); h.cursor != int(lo) {
		t.Errorf("down: cursor at %d, want %d", h.cursor, lo)
	}
	h.Update(keyMsg("g"))
	h.Update(keyMsg("enter"))
	out := emitted(c)
	if len(out) != 1 {
		t.Fatalf("enter emitted %v", out)
	}
	if sq, ok := out[0].(selectQueueMsg); !ok || sq.name != "orders" {
		if _, flash := out[0].(flashMsg); !flash {
			t.Errorf("enter on the first cell: %+v", out[0])
		}
	}
}

// The dialog: y runs, n cancels, a drain needs the queue's name typed; its
// answers are taken only with its own sequence.
func TestDialogUpdate(t *testing.T) {
	c := session(0)
	acts := &fakeActions{pending: 10}
	q := c.snap.Queue("orders")
	d, _ := newDialog(c, acts, 7, actionState{kind: actRequeue, queue: "orders", job: q.ActiveJobs()[0]})
	d.SetSize(120, 40)
	if d.Update(keyMsg("n")); len(emitted(c)) != 1 {
		t.Error("n did not end the dialog")
	}
	cmd := d.Update(keyMsg("y"))
	if cmd == nil || !d.a.running {
		t.Fatal("y did not run the requeue")
	}
	ans := cmd().(actionMsg)
	ans.seq = 6
	if d.Update(ans); len(emitted(c)) != 0 {
		t.Error("an answer of another dialog was taken")
	}
	ans.seq = 7
	d.Update(ans)
	if out := emitted(c); len(out) != 1 || !strings.Contains(out[0].(actionDoneMsg).text, "requeued "+stuckID) {
		t.Errorf("outcome %v", out)
	}
	dr, _ := newDialog(c, acts, 8, actionState{kind: actDrain, queue: "orders", total: 5})
	for _, k := range []string{"y", "enter"} {
		if cmd := dr.Update(keyMsg(k)); cmd != nil && dr.a.running {
			t.Fatalf("%s drained without the name", k)
		}
	}
	if !dr.a.wrong || dr.a.typed.Value() != "y" {
		t.Errorf("typed %q wrong %v: y is text in a drain dialog", dr.a.typed.Value(), dr.a.wrong)
	}
}

// The detail: esc closes it; r closes it and asks for the requeue of its
// job; an answer for another job is not taken.
func TestDetailUpdate(t *testing.T) {
	c := session(0)
	q := *c.snap.Queue("orders")
	d := newDetail(c, q, q.ActiveJobs()[0], true, true)
	d.SetSize(100, 30)
	d.Update(jobMsg{queue: "orders", id: stuck2ID, d: model.JobDetail{Exists: true, Payload: "OTHER"}})
	if d.done {
		t.Error("took another job's answer")
	}
	d.Update(keyMsg("r"))
	out := emitted(c)
	if len(out) != 2 || out[0] != (closeMsg{}) {
		t.Fatalf("r emitted %v", out)
	}
	if r := out[1].(requeueMsg); r.job.ID != stuckID {
		t.Errorf("r asked for %s", r.job.ID)
	}
	d.Update(keyMsg("esc"))
	if out := emitted(c); len(out) != 1 || out[0] != (closeMsg{}) {
		t.Errorf("esc emitted %v", out)
	}
}

// Each component's view at the sizes the layouts give it: exactly its
// size, every line its width.
func TestComponentViewsAtTheirSizes(t *testing.T) {
	c := session(40)
	l := newQueueList(c)
	comps := map[string]Component{
		"heatmap": newHeatPane(c), "nodes": &nodesPane{c: c, title: "cluster x"}, "queues": l,
		"pending": newJobsPane(c, false), "active": newJobsPane(c, true), "timeline": &timeline{c: c},
	}
	for _, size := range [][2]int{{60, 6}, {80, 7}, {116, 10}, {200, 14}} {
		for name, comp := range comps {
			comp.SetSize(size[0], size[1])
			l.refresh()
			lines := strings.Split(comp.View(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%s at %v: %d lines", name, size, len(lines))
			}
			for i, ln := range lines {
				if w := ansi.StringWidth(ln); w != size[0] {
					t.Errorf("%s at %v: line %d is %d wide", name, size, i, w)
					break
				}
			}
		}
	}
	l.SetSize(80, 8)
	l.refresh()
	golden(t, "queues-80x8", l.View())
	h := newHeatPane(c)
	h.SetSize(60, 8)
	golden(t, "heatmap-60x8", h.View())
}

// A new pane is a component and one entry of the pane table: tab reaches
// it, it is drawn at its place (here the timeline's, which it shares: the
// focused one of the two is drawn), it zooms, and a click on it focuses it.
type throwaway struct {
	w, h    int
	focused bool
}

func (p *throwaway) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *throwaway) SetFocus(f bool)           { p.focused = f }
func (p *throwaway) Update(tea.Msg) tea.Cmd    { return nil }
func (p *throwaway) ShortHelp() []key.Binding  { return nil }
func (p *throwaway) FullHelp() [][]key.Binding { return nil }
func (p *throwaway) View() string {
	return box(asciiTheme("dark").Border, "Throwaway", []string{"a pane added in a test"}, p.w, p.h)
}

func TestAPaneIsOneRegistration(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(10)}, 120, 40, Options{})
	tw := &throwaway{}
	m.panes = append(m.panes, paneEntry{"throwaway", tw, func(l layout) rect { return l.timeline }, true})
	m.relayout()
	if strings.Contains(m.View(), "a pane added in a test") {
		t.Fatal("the new pane is drawn over the timeline while it has no focus")
	}
	for range len(m.panes) {
		if m.panes[m.focus].c == Component(tw) {
			break
		}
		m = press(m, "tab")
	}
	v := m.View()
	if !tw.focused || !strings.Contains(v, "a pane added in a test") || strings.Contains(v, "Lease expiry") {
		t.Fatalf("tab did not reach the new pane, or it is not drawn in the timeline's place:\n%s", v)
	}
	for i, ln := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(ln); w != 120 {
			t.Errorf("line %d is %d wide", i, w)
		}
	}
	m = press(m, "z")
	if tw.w != 120 || tw.h != 38 {
		t.Errorf("zoomed, the new pane is %d×%d", tw.w, tw.h)
	}
	m = press(m, "z", "tab") // off it: the timeline is back
	if v := m.View(); strings.Contains(v, "a pane added in a test") || !strings.Contains(v, "Lease expiry") {
		t.Errorf("off the new pane, the timeline is not back:\n%s", v)
	}
}

// The table's named panes are where the root says (panes.go), and every
// pane that takes the focus can be reached by tab and drawn, at 80×24 too
// (the nodes pane, which says why a node is down, could not be).
func TestPaneTable(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(10)}, 120, 40, Options{})
	for p, c := range map[pane]Component{paneQueues: m.queues, paneHeat: m.heat, panePending: m.pending, paneActive: m.active} {
		if m.panes[p].c != c {
			t.Errorf("pane %d is %s", p, m.panes[p].name)
		}
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}, {100, 30}} {
		m := ready(&fakeSource{snap: fixture(10)}, size[0], size[1], Options{})
		seen := map[string]bool{}
		for range len(m.panes) {
			seen[m.panes[m.focus].name] = m.isDrawn(m.panes[m.focus].c)
			m = press(m, "tab")
		}
		for _, want := range []string{"queue list", "heatmap", "nodes", "foreign keys", "lease timeline", "pending", "active"} {
			if !seen[want] {
				t.Errorf("%dx%d: tab does not reach the %s pane, or it is not drawn when focused (%v)", size[0], size[1], want, seen)
			}
		}
	}
}

// The STATUS column says what is wrong, the most urgent first.
func TestQueueStatusInWords(t *testing.T) {
	th := asciiTheme("dark")
	grow := model.Trend{NetOK: true, Direction: model.Growing, PendingNet: 1.5}
	cases := []struct {
		q    model.Queue
		tr   model.Trend
		want string
	}{
		{model.Queue{Expired: 3, Pending: 5, OldestPendingAgeMs: 600_000, Stale: true}, grow, "node down · stuck: 3 expired leases"},
		{model.Queue{Expired: 3, Pending: 5, OldestPendingAgeMs: 600_000}, grow, "stuck: 3 expired leases"},
		{model.Queue{Expired: 1}, model.Trend{}, "stuck: 1 expired lease"},
		{model.Queue{Pending: 5, OldestPendingAgeMs: 360_000}, grow, "stalled: oldest waits 6m, none active"},
		{model.Queue{Pending: 5, Active: 1, OldestPendingAgeMs: 360_000}, grow, "growing +1.5/s net"},
		{model.Queue{Pending: 5, OldestPendingAgeMs: 30_000, Stale: true}, model.Trend{}, "node down · figures from its last answer"},
		{model.Queue{Err: "WRONGTYPE emq:{x}:active"}, model.Trend{}, "error: WRONGTYPE"},
		{model.Queue{Pending: 5, Active: 2, OldestPendingAgeMs: 5_000}, model.Trend{}, ""},
	}
	for _, c := range cases {
		got := ansi.Strip(queueStatus(th, &c.q, c.tr, c.q.OldestPendingAgeMs))
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.q, got, c.want)
		}
	}
}

// The detail explains the job: when it was enqueued (from its id), how
// long it has been stuck and how the clock moves that on, what its
// attempts mean, where it is, and the row's other fields, escaped and
// bounded, a huge one with its size.
func TestDetailExplainsTheJob(t *testing.T) {
	c := session(0)
	q := *c.snap.Queue("orders")
	j := q.ActiveJobs()[0] // stuckID: its lease ran out 30s before the snapshot
	d := newDetail(c, q, j, true, true)
	d.SetSize(110, 40)
	d.Update(jobMsg{queue: "orders", id: stuckID, d: model.JobDetail{Exists: true, State: "active", Attempts: "2",
		InActive: true, ActiveScore: j.Score, PendingRank: -1, Others: 70, Payload: "{}", PayloadLen: 2,
		Fields: []model.Field{
			{Name: "worker", Value: "w-7", NameLen: 6, ValueLen: 3},
			{Name: "last_error", Value: "boom\x1b]52;c;SGk=\x07", NameLen: 10, ValueLen: 17},
			{Name: "trace", Value: strings.Repeat("t", 512), NameLen: 5, ValueLen: 1 << 20},
		}}})
	at, _ := model.IDTime(stuckID)
	v := d.View()
	for _, want := range []string{
		at.UTC().Format("2006-01-02 15:04:05.000Z"), "(from its id)",
		"stuck for 30s · the lease ran out at 11:59:30.000Z",
		"2 · claimed 2 times (re-claimed after a lost lease) (the fence)",
		"in active (claimed by a worker), not pending",
		"70 more, listed below", "worker      w-7", `boom\x1b]52;c;SGk=\x07`, "(1.0 MiB) tttt",
		"… 67 more fields, not read (the detail reads 3)",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the detail lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") {
		t.Error("a field's escape reached the screen raw")
	}
	c.now = func() time.Time { return fixedNow.Add(95 * time.Second) }
	if v := d.View(); !strings.Contains(v, "stuck for 2m05s") {
		t.Errorf("the stuck time does not move on with the clock:\n%s", v)
	}

	p := newDetail(c, q, q.PendingJobs()[0], false, true)
	p.SetSize(110, 40)
	p.Update(jobMsg{queue: "orders", id: pendID, d: model.JobDetail{Exists: true, State: "pending", Attempts: "0",
		InPending: true, PendingRank: 2, PendingScore: fixedNow.UnixMilli()}})
	v = p.View()
	for _, want := range []string{"3rd of 5 in pending · 2 ahead of it", "0 · never claimed", "none: not claimed",
		"none besides state, attempts and payload"} {
		if !strings.Contains(v, want) {
			t.Errorf("the pending job's detail lacks %q:\n%s", want, v)
		}
	}
}

func TestOrdinalsAndCommas(t *testing.T) {
	for n, want := range map[int64]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 112: "112th", 1234: "1,234th", 1000000: "1,000,000th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
	if commas(-1234567) != "-1,234,567" || commas(999) != "999" {
		t.Errorf("commas: %q %q", commas(-1234567), commas(999))
	}
}

// downFixture is the fixture with :7001 not answering for 12s: its queues
// keep their last figures, marked stale.
func downFixture() *model.Snapshot {
	s := fixture(30)
	n := &s.Nodes[1]
	n.Err, n.LastGood = "connection refused: nothing listens there", fixedNow.Add(-12*time.Second)
	for i := range s.Queues.Len() {
		if s.Queues.At(i).Node.Addr() == n.Addr {
			s.Queues.At(i).Stale = true
		}
	}
	return s
}

// Down is unmistakable: the mode says DEGRADED, the node's row says why in
// words before anything a cut could take, its slots are hatched and the
// legend says so, its queues are flagged; at every size.
func TestDownIsUnmistakable(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		m := ready(&fakeSource{snap: downFixture()}, sz[0], sz[1], Options{})
		v := m.View()
		lines := strings.Split(v, "\n")
		if !strings.Contains(lines[0], "DEGRADED 1/3 down") || strings.Contains(lines[0], "LIVE") {
			t.Errorf("%v: status bar %q", sz, lines[0])
		}
		for _, want := range []string{"down: connection refused, 12s", "/ down", "node down"} {
			if sz[0] == 80 && want != "/ down" {
				continue // no nodes pane, no status column at 80×24: below
			}
			if !strings.Contains(v, want) {
				t.Errorf("%v: lacks %q:\n%s", sz, want, v)
			}
		}
	}
	// the heatmap: the down node's slots hatched, the others not
	c := session(30)
	c.snap = downFixture()
	c.fold = model.NewFold(c.snap)
	l := newQueueList(c)
	for _, q := range c.snap.Queues.All() {
		if row := l.row(q, false, 78, "", l.columns(78)); q.Stale != strings.HasPrefix(row, " ✗") {
			t.Errorf("at 80 columns, the row of %s (stale %v) is %q", q.Name, q.Stale, row)
		}
	}
	h := newHeatPane(c)
	h.SetSize(60, 12)
	cells := c.heatmap(h.cells())
	h.measure(cells)
	rows := h.glyphs(cells, -1, -1)
	hatched, other := 0, 0
	for i, cell := range cells {
		ch := []rune(rows[i/h.mapW()])[i%h.mapW()]
		owner := c.snap.Nodes[cell.Owner].Addr
		switch {
		case owner == "127.0.0.1:7001" && cell.Expired == 0:
			if ch != '/' {
				t.Errorf("cell %d of the down node is %q", i, ch)
			}
			hatched++
		case ch == '/':
			other++
		}
	}
	if hatched == 0 || other != 0 {
		t.Errorf("%d cells of the down node hatched, %d of others", hatched, other)
	}
}

func TestDownWords(t *testing.T) {
	for err, want := range map[string]string{
		"connection refused: nothing listens there":         "connection refused",
		"no answer within 2s, retrying":                     "no answer within 2s",
		"dial tcp 10.0.0.1:6379: connect: no route to host": "no route to host",
		"read tcp: connection reset by peer":                "connection lost",
		"LOADING Valkey is loading the dataset in memory":   "loading its data",
		"something new\x1b[2J":                              `something new\x1b[2J`,
	} {
		if got := downWords(err); got != want {
			t.Errorf("downWords(%q) = %q, want %q", err, got, want)
		}
	}
}

// Queues are remembered: one that empties, or leaves the snapshot, stays
// in the list marked idle with since when; i hides and shows them at once;
// an hour after it left it is forgotten; one that comes back is not idle.
func TestQueuesAreRemembered(t *testing.T) {
	now := fixedNow
	snap := func(qs ...*model.Queue) *model.Snapshot {
		s := fixture(0)
		s.Queues, s.TakenAt = model.ListOf(qs...), now
		return s
	}
	q := func(name string, pending int64) *model.Queue {
		return &model.Queue{Name: name, Slot: 7, Node: model.RefOf("127.0.0.1:7000"), Pending: pending, OldestPendingAgeMs: -1}
	}
	m := New(&fakeSource{snap: fixture(0)}, asciiTheme("dark"), Options{Now: func() time.Time { return now }})
	m.c.tick = testTick
	step := func(s *model.Snapshot) string {
		mm, _ := m.Update(SnapshotMsg(s))
		m = mm.(*Model)
		return m.View()
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	v := step(snap(q("alpha", 3), q("beta", 0), q("gamma", 1)))
	if !strings.Contains(v, "idle: empty at start") || !strings.Contains(v, "3 queues (1 idle)") {
		t.Errorf("beta, empty at the start, is not idle:\n%s", v)
	}
	now = now.Add(90 * time.Second)
	v = step(snap(q("alpha", 3))) // beta and gamma left the snapshot (discovery dropped them)
	if !strings.Contains(v, "gamma") || !strings.Contains(v, "idle 0ms, since 12:01:30Z") ||
		!strings.Contains(v, "3 queues (2 idle)") {
		t.Errorf("gamma, gone, is not remembered idle:\n%s", v)
	}
	now = now.Add(4 * time.Minute)
	if v = m.View(); !strings.Contains(v, "idle 4m, since 12:01:30Z") {
		t.Errorf("the idle time does not move on:\n%s", v)
	}
	v = press(m, "i").View()
	if strings.Contains(v, "gamma") || strings.Contains(v, "beta") || !strings.Contains(v, "1 queue (+2 idle hidden)") ||
		!strings.Contains(v, "idle queues hidden (2): i shows them") {
		t.Errorf("i does not hide the idle queues at once:\n%s", v)
	}
	v = press(m, "i").View()
	if !strings.Contains(v, "gamma") || !strings.Contains(v, "idle queues shown (2)") {
		t.Errorf("i does not show them again:\n%s", v)
	}
	now = now.Add(time.Hour)
	v = step(snap(q("alpha", 3), q("beta", 2)))
	if strings.Contains(v, "gamma") || !strings.Contains(v, "2 queues ·") || strings.Contains(v, ", since ") {
		t.Errorf("gamma, gone an hour, is still listed, or beta, back, is idle:\n%s", v)
	}
}

// 80×24 is first class: the help lists every key of every pane and
// scrolls; z gives the focused pane the screen and follows the focus;
// lists say which rows they show.
func TestSmallScreenHelpZoomAndPosition(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(30)}, 80, 24, Options{Actions: &fakeActions{}})
	m = press(m, "?")
	seen := ""
	for i := 0; i < 20; i++ {
		seen += m.View()
		m = press(m, "pgdown")
	}
	for _, g := range m.keyGroups() {
		for _, col := range g.keys.FullHelp() {
			for _, b := range col {
				if h := b.Help(); !strings.Contains(seen, h.Key+"  ") || !strings.Contains(seen, h.Desc) {
					t.Errorf("the help at 80×24 lacks %s %q (%s)", h.Key, h.Desc, g.pane)
				}
			}
		}
	}
	for _, g := range glossary {
		if w := strings.Fields(g)[0]; !strings.Contains(seen, w) {
			t.Errorf("the help lacks the note starting %q", w)
		}
	}
	if !strings.Contains(seen, "Help · rows 1–") {
		t.Error("the help does not say it scrolls")
	}
	m = press(m, "esc")
	if m.helpView != nil {
		t.Fatal("esc did not close the help")
	}
	before := strings.Count(m.View(), "bulk-")
	v := press(m, "z").View()
	if n := strings.Count(v, "bulk-"); n <= before+5 || !strings.Contains(v, "Queues 36 · sort expired, most first · rows 1–") ||
		strings.Contains(v, "Slots 0–16383") {
		t.Errorf("z did not give the queue list the screen (%d rows of bulk, were %d):\n%s", n, before, v)
	}
	v = press(m, "tab").View()
	if !strings.Contains(v, "Slots 0–16383") || strings.Contains(v, "Queues 36") {
		t.Errorf("the zoom did not follow the focus to the heatmap:\n%s", v)
	}
	v = press(m, "z").View()
	if !strings.Contains(v, "Slots 0–16383") || !strings.Contains(v, "Queues 36") {
		t.Errorf("z again did not bring the panes back:\n%s", v)
	}
}

// Every key shows its effect in the next frame: + and - re-arm the loop at
// once and say the interval; < and > say the span and read it at once,
// paused too; a queue selected while paused is read once; without
// --window the span fits the leases until the operator picks one.
func TestImmediateFeedback(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	m := ready(src, 120, 40, Options{Interval: time.Second})
	gen := m.gen
	_, cmd := m.Update(keyMsg("+"))
	if cmd == nil || m.gen == gen || m.interval != 500*time.Millisecond ||
		!strings.Contains(m.View(), "polling every 500ms") {
		t.Errorf("+: interval %v, re-armed %v, flash %q", m.interval, m.gen != gen, m.flash)
	}
	m = press(m, "p")
	m.inFlight = false // the pause's own poll is not delivered here
	_, cmd = m.Update(keyMsg(">"))
	if cmd == nil || !m.inFlight || src.window != 2*time.Minute || !strings.Contains(m.View(), "lease timeline now±2m") {
		t.Errorf(">: paused poll %v, window %v, flash %q", m.inFlight, src.window, m.flash)
	}
	// the poll's answer while paused arms nothing more
	mm, next := m.Update(cmd())
	m = mm.(*Model)
	if next != nil || m.inFlight {
		t.Error("paused, the answer re-armed the loop")
	}
	// selected while paused: the settled selection is read once
	m.Update(selMsg{gen: m.selGen})
	if !m.inFlight {
		t.Error("a queue selected while paused is not read")
	}
}

func TestWindowFitted(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	s := src.snap
	o := s.Queue("orders")
	// the jobs read alone (the histogram's part: TestWindowFittedFromTheHistogram)
	o.SetJobs(o.PendingJobs(), []model.Job{{ID: liveID, Valid: true, Score: s.ServerTimeMs + 7000, Attempts: 1, AttemptsOK: true}}, nil)
	m := New(src, asciiTheme("dark"), Options{Now: func() time.Time { return fixedNow }})
	m.c.tick = testTick
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(snapshotMsg{snap: s})
	if m.window != 10*time.Second || src.window != 10*time.Second || !strings.Contains(m.flash, "fitted to the leases") {
		t.Errorf("7s leases: window %v (source %v), flash %q; want 10s", m.window, src.window, m.flash)
	}
	m.inFlight = false
	m = press(m, "<")
	o.ActiveJobs()[0].Score = s.ServerTimeMs + 50*60*1000
	m.inFlight = false
	m.Update(snapshotMsg{snap: s, seq: m.pollSeq})
	if m.window != 5*time.Second {
		t.Errorf("after <, the span still follows the leases: %v", m.window)
	}
	fixed := New(src, asciiTheme("dark"), Options{Window: time.Minute, Now: func() time.Time { return fixedNow }})
	fixed.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	fixed.Update(snapshotMsg{snap: s})
	if fixed.window != time.Minute {
		t.Errorf("--window 1m was fitted to %v", fixed.window)
	}
}

// The timeline has a y-scale, a now marker that a bar on now does not
// hide, and says what lies beyond the window, at both heights.
func TestTimelineScaleNowAndBeyond(t *testing.T) {
	c := session(0)
	q := c.sel
	h := make([]int64, len(c.snap.Edges)+1)
	h[0], h[31], h[20], h[len(h)-1] = 7, 9, 3, 2 // 9 end just after now
	q.SetJobs(q.PendingJobs(), q.ActiveJobs(), h)
	tl := &timeline{c: c}
	full := strings.Join(tl.lines(70, 6), "\n")
	for _, want := range []string{"    9┤", "▲now", "«7", " 2»", "«7 ran out more than 1m ago (stuck longer)",
		"2» end more than 1m from now", "−1m", "+1m"} {
		if !strings.Contains(full, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, full)
		}
	}
	compact := tl.lines(70, 2)
	if len(compact) != 2 || !strings.Contains(compact[1], "▲now") || !strings.Contains(compact[1], "«7") {
		t.Errorf("the compact timeline:\n%s", strings.Join(compact, "\n"))
	}
	// the bar on now is drawn, the marker is on the axis under it
	bars := []rune(ansi.Strip(compact[0]))
	axis := []rune(ansi.Strip(compact[1]))
	at := strings.Index(string(axis), "▲")
	at = len([]rune(string(axis)[:at]))
	if bars[at] != '█' {
		t.Errorf("the bar on now is %q, the axis %q", string(bars[at]), string(axis))
	}
}

// The spread: % shows each primary's share of slots, queues, jobs and
// expired; a node with far more than its share is marked and said so in
// numbers, whether of the jobs or of the slots.
func TestSpreadMarksImbalance(t *testing.T) {
	s := fixture(30)
	s.Nodes[2].Pending, s.Nodes[2].Active = 1500, 100 // :7002 holds most of the jobs
	m := ready(&fakeSource{snap: s}, 120, 40, Options{})
	v := m.View()
	if !strings.Contains(v, "⚠ :7002 has") {
		t.Errorf("no mark in counts mode:\n%s", v)
	}
	v = press(m, "%").View()
	for _, want := range []string{"Spread · cluster", "33%", "⚠ :7002 has 80% of jobs on 33% of slots (2.4×)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the spread lacks %q:\n%s", want, v)
		}
	}
	even := fixture(30)
	if v := ready(&fakeSource{snap: even}, 120, 40, Options{}).View(); strings.Contains(v, "⚠ :") || strings.Contains(v, "s ⚠") {
		t.Errorf("an even cluster is marked:\n%s", v)
	}
	lop := fixture(30)
	lop.Nodes[0].Slots = []model.Range{{Lo: 0, Hi: 9999}}
	lop.Nodes[1].Slots = []model.Range{{Lo: 10000, Hi: 12999}}
	lop.Nodes[2].Slots = []model.Range{{Lo: 13000, Hi: 16383}}
	if v := ready(&fakeSource{snap: lop}, 120, 40, Options{}).View(); !strings.Contains(v, "⚠ :7000 owns 61% of slots: 1.8× a fair share") {
		t.Errorf("a lopsided slot split is not said:\n%s", v)
	}
}

// m cycles what the heatmap's brightness measures; the title says the
// mode and its scale; in expired mode only cells with expired leases light.
func TestHeatModes(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(30)}, 120, 40, Options{})
	if v := m.View(); !strings.Contains(v, "jobs per cell ░1") {
		t.Errorf("jobs mode title:\n%s", v)
	}
	v := press(m, "m").View()
	if !strings.Contains(v, "queues per cell") || !strings.Contains(v, "brightness is queues per cell") {
		t.Errorf("m did not switch to queues:\n%s", v)
	}
	press(m, "m").View()
	cells := m.c.heatmap(m.heat.cells())
	lit := 0
	for i, c := range cells {
		if (m.heat.levels[i] > 0) != (c.Expired > 0) {
			t.Fatalf("expired mode: cell %d has %d expired and level %d", i, c.Expired, m.heat.levels[i])
		}
		if c.Expired > 0 {
			lit++
		}
	}
	if lit == 0 || !strings.Contains(m.View(), "expired per cell") {
		t.Error("expired mode lights nothing, or its title does not say it")
	}
	for _, want := range []string{"keys per cell", "CPU per cell", "network per cell"} {
		if v := press(m, "m").View(); !strings.Contains(v, want) {
			t.Errorf("m: no %q:\n%s", want, v)
		}
	}
	if press(m, "m"); m.heat.mode != heatJobs {
		t.Error("m does not come back to jobs")
	}
}

// The heatmap by the servers' own load (CLUSTER SLOT-STATS): each mode
// says in words why it has nothing (not read yet, no such command, the
// stats' CPU off and how to turn it on); with the figures, the busiest
// slot is lit and the scale is in the mode's unit.
func TestHeatServerModes(t *testing.T) {
	s := fixture(0)
	m := ready(&fakeSource{snap: s}, 160, 40, Options{})
	m.heat.mode = heatCPU
	if v := m.View(); !strings.Contains(v, "CPU per cell: not available") || !strings.Contains(v, "CPU: not read yet") {
		t.Errorf("no Load:\n%s", v)
	}
	s = m.c.snap
	keysOnly := &model.SlotLoad{Keys: make([]int64, 16384), Nodes: map[string]model.SlotStatsNode{}}
	for _, n := range s.Nodes[:3] {
		keysOnly.Nodes[n.Addr] = model.SlotStatsNode{Mode: model.SlotStatsKeys, Why: "cluster-slot-stats-enabled is off: CONFIG SET cluster-slot-stats-enabled yes"}
	}
	keysOnly.Keys[105] = 40
	s.Load = keysOnly
	m.c.fold = model.NewFold(s)
	if v := m.View(); !strings.Contains(v, "CPU: :7000: cluster-slot-stats-enabled is off") {
		t.Errorf("keys only, CPU mode:\n%s", v)
	}
	m.heat.mode = heatSrvKeys
	if v := m.View(); !strings.Contains(v, "keys per cell") || strings.Contains(v, "keys per cell:") {
		t.Errorf("keys only, keys mode: %s", strings.Split(v, "\n")[1])
	}
	full := &model.SlotLoad{Keys: keysOnly.Keys, CPU: make([]float64, 16384), Net: make([]float64, 16384), Nodes: map[string]model.SlotStatsNode{}}
	for _, n := range s.Nodes[:3] {
		full.Nodes[n.Addr] = model.SlotStatsNode{Mode: model.SlotStatsFull, RatesOver: 5 * time.Second}
	}
	full.CPU[105], full.CPU[9000] = 380_000, 2_000 // 38% and 0.2% of a core
	s.Load = full
	m.c.fold = model.NewFold(s)
	m.heat.mode = heatCPU
	v := m.View()
	if !strings.Contains(v, "CPU per cell") || !strings.Contains(v, "380.0ms/s") {
		t.Errorf("full, CPU mode: %s", strings.Split(v, "\n")[1])
	}
	cells := m.c.heatmap(m.heat.cells())
	if i := model.CellOf(105, len(cells)); m.heat.levels[i] != 4 {
		t.Errorf("slot 105's cell at level %d, want the brightest", m.heat.levels[i])
	}
	// the spread: each primary's share of the keys and the CPU, and the
	// hot slot named with its queues
	for addr, st := range full.Nodes {
		st.Keys, st.CPU = 40, 1000
		if addr == "127.0.0.1:7000" {
			st.CPU = 382_000
		}
		full.Nodes[addr] = st
	}
	press(m, "%")
	m.nodes.SetSize(100, 14)
	v = ansi.Strip(m.nodes.View())
	if !strings.Contains(v, "KEYS") || !strings.Contains(v, "CPU") || !strings.Contains(v, "hottest: slot 105 · 99% of :7000's CPU · orders") {
		t.Errorf("the spread lacks the servers' load:\n%s", v)
	}
}

// fakeFinder finds id in queue after steps steps; any other id is not there.
type fakeFinder struct {
	*fakeSource
	id, queue string
	steps     int
	started   int
}

type fakeSearch struct {
	f    *fakeFinder
	id   string
	done int
}

func (f *fakeFinder) StartFind(_ context.Context, id string) (model.FindSearch, error) {
	if !strings.HasPrefix(id, "JOB") {
		return nil, errors.New(`"` + id + `" is not a job id: JOB followed by a 26-character ULID`)
	}
	f.started++
	return &fakeSearch{f: f, id: id}, nil
}

func (s *fakeSearch) Step(context.Context) model.FindProgress {
	s.done++
	p := model.FindProgress{Walked: int64(s.done * 1000), Total: int64(s.f.steps * 1000), Nodes: 3}
	if s.done >= s.f.steps {
		p.Done = true
		if s.id == s.f.id {
			p.Queue = s.f.queue
		}
	}
	return p
}

// f finds a job by id: a pasted id (quotes and spaces dropped) is searched
// step by step, and its queue is selected and its detail opened; an id not
// there says so; a malformed one is refused in words; esc cancels.
func TestFindOpensTheJob(t *testing.T) {
	src := &fakeFinder{fakeSource: &fakeSource{snap: fixture(30)}, id: liveID, queue: "tenant-12", steps: 3}
	src.jobs = map[string]model.JobDetail{liveID: {Queue: "tenant-12", ID: liveID, Exists: true, State: "active",
		Attempts: "4", InActive: true, ActiveScore: fixedNow.UnixMilli() - 9000, PendingRank: -1}}
	m := ready(src.fakeSource, 120, 40, Options{Actions: &fakeActions{}})
	m.src = src
	m.applyModes() // the source decides whether f is on
	m = press(m, "f")
	if m.find == nil || !strings.Contains(m.View(), "Find a job by its id") {
		t.Fatal("f did not open the find")
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(" '" + liveID + "' "), Paste: true})
	settle(m, cmd, true)
	_, cmd = m.Update(keyMsg("enter"))
	settle(m, cmd, true)
	if m.find != nil || m.detail == nil || m.detail.job.ID != liveID || m.c.sel == nil || m.c.sel.Name != "tenant-12" {
		t.Fatalf("the find did not open the job: find %v detail %v sel %v", m.find != nil, m.detail != nil, m.c.sel)
	}
	v := m.View() + m.flash
	for _, want := range []string{"found " + liveID + " in tenant-12", "stuck for 9s", "4 · claimed 4 times"} {
		if !strings.Contains(v, want) {
			t.Errorf("after the find, the screen lacks %q:\n%s", want, v)
		}
	}
	if !m.detail.keys.Requeue.Enabled() {
		t.Error("a found active job cannot be requeued from its detail")
	}
	m = press(m, "esc", "f")
	for _, r := range stuckID {
		m.Update(keyMsg(string(r)))
	}
	_, cmd = m.Update(keyMsg("enter"))
	settle(m, cmd, true)
	if v := m.View(); m.find == nil || !strings.Contains(v, "no row of that id on any primary searched") ||
		!strings.Contains(v, "searched 100% of 3,000 keys on 3 primaries") {
		t.Errorf("an id not there:\n%s", v)
	}
	m = press(m, "esc", "f", "x")
	_, cmd = m.Update(keyMsg("enter"))
	settle(m, cmd, true)
	if v := m.View(); !strings.Contains(v, `"x" is not a job id`) {
		t.Errorf("a malformed id:\n%s", v)
	}
	m = press(m, "esc")
	if m.find != nil || src.started != 2 {
		t.Errorf("esc did not close the find, or a malformed id was searched (%d finds)", src.started)
	}
}

// c copies what the operator points at: the job under a job pane's
// cursor, else the selected queue's name, the job in its detail; an
// invalid id (server text) is never copied.
func TestCopy(t *testing.T) {
	var got []string
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Copy: func(s string) error { got = append(got, s); return nil }})
	m = press(m, "c")
	m = press(m, "shift+tab", "c") // the active pane: its first job
	m = press(m, "enter")
	m = press(m, "c")
	if !strings.Contains(m.View(), "copied the job id "+stuckID) {
		t.Errorf("the detail does not say it copied:\n%s", m.View())
	}
	m = press(m, "esc", "j", "j", "c") // the invalid id
	if len(got) != 3 || got[0] != "orders" || got[1] != stuckID || got[2] != stuckID {
		t.Errorf("copied %q", got)
	}
	if !strings.Contains(m.flash, "never copied") {
		t.Errorf("an invalid id: flash %q", m.flash)
	}
	// a name with a bidi override is never copied, raw or escaped
	s := fixture(0)
	s.Queues.At(0).Name = "\u202eevil-rtl"
	rtl := ready(&fakeSource{snap: s}, 120, 40, Options{Copy: func(s string) error { got = append(got, s); return nil }})
	if press(rtl, "c"); len(got) != 3 || !strings.Contains(rtl.flash, "never copied") {
		t.Errorf("a name with U+202E: copied %q, flash %q", got, rtl.flash)
	}
	none := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{})
	if press(none, "c"); !strings.Contains(none.flash, "not available") {
		t.Errorf("without a clipboard: flash %q", none.flash)
	}
}

// / on a job pane filters its jobs by a part of the id, any case; the
// filter narrows what r and enter act on; esc clears it.
func TestJobPaneFilter(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: &fakeActions{}})
	m = press(m, "shift+tab", "/", "9", "q", "2", "z")
	if !m.active.capturing() || m.queues.capturing() {
		t.Fatal("/ on the active pane did not open its filter")
	}
	m = press(m, "enter")
	v := m.View()
	if strings.Contains(v, stuckID) || !strings.Contains(v, stuck2ID) || !strings.Contains(v, "filter /9q2z: 1 of the jobs read") {
		t.Errorf("the filter did not narrow the active pane:\n%s", v)
	}
	m = press(m, "r")
	if m.dialog == nil || m.dialog.a.job.ID != stuck2ID {
		t.Fatal("r did not act on the filtered job")
	}
	m = press(m, "n")
	if m.flash != "" {
		m = press(m, "esc") // esc takes the message first
	}
	m = press(m, "esc")
	if v := m.View(); !strings.Contains(v, stuckID) || strings.Contains(v, "filter /") {
		t.Errorf("esc did not clear the job filter:\n%s", v)
	}
}

// The mouse: a click focuses the pane under it and selects the row or the
// cell clicked; the wheel moves the selection of the pane under it, and
// scrolls an overlay.
func TestMouse(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(30)}, 120, 40, Options{})
	// a click lands on the frame drawn before it: draw, and wait for the
	// zones of that frame to be kept (bubblezone keeps them in a worker):
	// each drawn pane's zone its rect, taken by this frame or kept from
	// the last when the panes stayed where they were. An overlay's frame
	// has no pane zones (the wheel scrolls the overlay)
	mouse := func(x, y int, b tea.MouseButton) {
		m.View()
		untilZones(t, m)
		_, cmd := m.Update(tea.MouseMsg{X: x, Y: y, Button: b, Action: tea.MouseActionPress})
		settle(m, cmd, false)
	}
	click := func(x, y int) { mouse(x, y, tea.MouseButtonLeft) }
	wheel := func(x, y int, b tea.MouseButton) { mouse(x, y, b) }
	q := m.lay.queues
	click(q.x+5, q.y+2+3) // the fourth row of the list
	if m.focus != paneQueues || m.queues.sel != 3 || m.c.sel.Name != m.queues.selectedName() {
		t.Errorf("a click on the fourth row: focus %v, selection %d", m.focus, m.queues.sel)
	}
	wheel(q.x+5, q.y+4, tea.MouseButtonWheelDown)
	wheel(q.x+5, q.y+4, tea.MouseButtonWheelDown)
	if m.queues.sel != 5 {
		t.Errorf("two wheel notches down: selection %d, want 5", m.queues.sel)
	}
	h := m.lay.heat
	click(h.x+1, h.y+1) // the first cell
	if m.focus != paneHeat || m.heat.cursor != 0 {
		t.Errorf("a click on the first cell: focus %v, cursor %d", m.focus, m.heat.cursor)
	}
	click(h.x+11, h.y+2) // glyphs (the test theme): a cell per character
	if lo, _ := model.CellRange(m.heat.mapW()+10, m.heat.cells()); m.heat.cursor != int(lo) {
		t.Errorf("a click on row 2 column 10: cursor %d, want slot %d", m.heat.cursor, lo)
	}
	click(q.x+5, q.y+2) // orders, whose jobs were read
	a := m.lay.active
	click(a.x+3, a.y+3) // the second job
	if m.focus != paneActive || m.active.cur != 1 {
		t.Errorf("a click on the second active job: focus %v, cursor %d", m.focus, m.active.cur)
	}
	m = press(m, "?")
	before := m.helpView.vp.YOffset
	wheel(10, 10, tea.MouseButtonWheelDown)
	if m.helpView.vp.YOffset <= before {
		t.Error("the wheel does not scroll the help")
	}
}

// The fitted span also follows the histogram, which counts every lease
// (the jobs read are only the earliest deadlines, stuck ones first).
func TestWindowFittedFromTheHistogram(t *testing.T) {
	s := fixture(0)
	o := s.Queue("orders")
	h := make([]int64, len(s.Edges)+1) // edges: −60s..+60s by 2s
	h[31], h[32] = 4, 2                // leases ending within +4s
	// both active jobs read expired: nothing live among them
	o.SetJobs(o.PendingJobs(), o.ActiveJobs()[:2], h)
	if far := farthestLease(o, s.Edges); far != 4000 {
		t.Errorf("farthest lease %dms, want 4000", far)
	}
	o.Hist()[len(o.Hist())-1] = 1 // one beyond the window
	if far := farthestLease(o, s.Edges); far != 120000 {
		t.Errorf("a lease beyond ±1m: %dms, want a step past it", far)
	}
}

// On a shared poller (emqtop serve) + and - change nothing and say why;
// a span asked says the server reads the widest.
func TestSharedPollerKeys(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Interval: time.Second, Shared: true})
	gen := m.gen
	m = press(m, "+")
	if m.interval != time.Second || m.gen != gen || !strings.Contains(m.flash, "the server polls every 1s for every session") {
		t.Errorf("+ on a shared poller: interval %v, flash %q", m.interval, m.flash)
	}
	m = press(m, ">")
	if !strings.Contains(m.flash, "the server reads the widest span its sessions ask") {
		t.Errorf("> on a shared poller: %q", m.flash)
	}
}

// A job pane's title says the rows of the queue it shows, never of the
// queue shown before: orders' 5 pending in 4 rows, then a queue with none.
func TestJobPaneTitleFollowsTheQueue(t *testing.T) {
	c := session(0)
	for _, active := range []bool{false, true} {
		p := newJobsPane(c, active)
		p.SetSize(80, 6) // 4 lines: a header and 3 jobs
		c.sel = c.snap.Queue("orders")
		q := *c.sel
		q.Pending, q.Active = 5000, 198
		pj := q.PendingJobs()
		q.SetJobs(append(pj[:len(pj):len(pj)], pj[0], pj[0], pj[0]), q.ActiveJobs(), q.Hist())
		c.sel = &q
		if v := p.View(); !strings.Contains(v, "rows 1–3 of") {
			t.Fatalf("active %v: a full pane of orders shows no position:\n%s", active, v)
		}
		empty := model.Queue{Name: "idle", Detail: true, ServerTimeMs: fixedNow.UnixMilli()}
		c.sel = &empty
		if v := p.View(); strings.Contains(v, "rows") || !strings.Contains(v, "idle") {
			t.Errorf("active %v: the empty queue's pane keeps another's rows:\n%s", active, v)
		}
	}
}

// + and - climb a fixed ladder: every step can be undone, 1s is reached
// again from 1m (it once went 30s, 15s, 7.5s … 937.5ms), and a duration is
// written one way everywhere.
func TestIntervalLadderAndDurationWords(t *testing.T) {
	d := time.Second
	var up []string
	for i := 0; i < 8; i++ {
		d = intervalStep(d, +1)
		up = append(up, ago(d))
	}
	if got := strings.Join(up, " "); got != "2s 5s 10s 30s 1m 1m 1m 1m" {
		t.Errorf("up from 1s: %s", got)
	}
	var down []string
	for i := 0; i < 8; i++ {
		d = intervalStep(d, -1)
		down = append(down, ago(d))
	}
	if got := strings.Join(down, " "); got != "30s 10s 5s 2s 1s 500ms 250ms 250ms" {
		t.Errorf("down from 1m: %s", got)
	}
	if intervalStep(3*time.Second, +1) != 5*time.Second || intervalStep(3*time.Second, -1) != 2*time.Second {
		t.Error("an interval off the ladder goes to the next rung")
	}
	for d, want := range map[time.Duration]string{time.Minute: "1m", 61 * time.Second: "1m01s", 7500 * time.Millisecond: "7s",
		time.Hour: "1h", 50*time.Minute + time.Second: "50m01s", 250 * time.Millisecond: "250ms", 3*time.Hour + 2*time.Minute: "3h02m"} {
		if got := ago(d); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
	if every(2500*time.Millisecond) != "2.5s" || every(time.Minute) != "1m" {
		t.Errorf("every: %q %q", every(2500*time.Millisecond), every(time.Minute))
	}
}

// The trend pane's words are never cut: where one line is too narrow each
// clause takes a line of its own.
func TestTrendWordsWhole(t *testing.T) {
	c := session(0)
	// ten minutes of a drain at 0.4 jobs a second, expired leases all along
	withPast(c.snap, 600, map[string]func(i int) ([model.Metrics]int64, bool){
		"orders": func(i int) ([model.Metrics]int64, bool) {
			return [model.Metrics]int64{model.MPending: int64(280 - i*4/10), model.MExpired: 1}, true
		},
	})
	c.sel = c.snap.Queue("orders")
	tr := c.snap.Trend(c.sel)
	if tr.Direction != model.Shrinking || tr.EmptyIn == 0 || tr.SinceExpiredZero == 0 {
		t.Fatalf("the drain reads %+v", tr)
	}
	want := append(tr.Clauses(), "expired for at least "+ago(tr.SinceExpiredZero))
	for _, w := range []int{40, 60, 100} {
		p := &trendPane{c: c}
		p.SetSize(w, 12)
		v := ansi.Strip(p.View())
		flat := strings.Join(strings.Fields(strings.ReplaceAll(v, "│", " ")), " ")
		for _, want := range want {
			if !strings.Contains(flat, want) {
				t.Errorf("width %d: %q cut or missing:\n%s", w, want, v)
			}
		}
	}
}

// The nodes pane never cuts a figure or a node's name: a column that does
// not fit is dropped whole (at 100 columns it read EXPIRE…, 13… and 2…;
// with no colour "[1] :226…"). A replica's health passes the gate before
// its style, never after ("replica \x1b[38;5;40mok").
func TestNodesPaneDropsColumnsWhole(t *testing.T) {
	for _, name := range []string{"dark", "mono"} {
		c := session(0)
		c.th = asciiTheme(name)
		if name == "dark" { // in colour: the styles are what the gate once escaped
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(termenv.ANSI256)
			c.th, _ = theme.New(r, "dark")
		}
		for w := 30; w <= 90; w += 4 {
			for _, shares := range []bool{false, true} {
				p := &nodesPane{c: c, shares: shares, title: "cluster x"}
				p.SetSize(w, 14)
				v := p.View()
				if strings.Contains(v, `\x1b`) {
					t.Fatalf("%s %d: an escaped style:\n%s", name, w, v)
				}
				plain := strings.Split(ansi.Strip(v), "\n")
				for _, l := range plain[1:4] {
					if strings.Contains(l, "…") {
						t.Errorf("%s width %d shares %v: a cut in %q", name, w, shares, l)
					}
				}
				if !strings.Contains(plain[1], "EXPIRED") || !strings.Contains(plain[1], "JOBS") {
					t.Errorf("%s width %d: the columns that never go went: %q", name, w, plain[1])
				}
			}
		}
	}
}

// The help wraps at spaces only: a flag is never split at its hyphens
// ("--" on one line, "window" on the next).
func TestHelpWrapsAtSpaces(t *testing.T) {
	text := "Without --window the span fits the leases seen; see also --read-only and tenant-154."
	for w := 8; w <= 40; w++ {
		for _, l := range wrapWords(text, w) {
			if ansi.StringWidth(l) > w {
				t.Errorf("width %d: %q is wider", w, l)
			}
			if w >= 12 && (strings.HasSuffix(l, "-") || strings.HasPrefix(l, "window") || strings.HasPrefix(l, "only")) {
				t.Errorf("width %d: a word split at its hyphen: %q", w, l)
			}
		}
	}
}

// A deadline of ±inf is said in words, never as 106751d or a minus sign
// and 19 digits.
func TestInfiniteDeadlinesInWords(t *testing.T) {
	c := session(0)
	q := *c.sel
	q.SetJobs([]model.Job{{ID: pendID, Valid: true, ScoreOff: -1, AttemptsOK: true}},
		[]model.Job{{ID: stuckID, Valid: true, ScoreOff: 1, Attempts: 1, AttemptsOK: true},
			{ID: stuck2ID, Valid: true, ScoreOff: -1, Attempts: 1, AttemptsOK: true}},
		q.Hist())
	c.sel = &q
	act, pend := newJobsPane(c, true), newJobsPane(c, false)
	act.SetSize(100, 8)
	pend.SetSize(100, 8)
	v := ansi.Strip(act.View() + pend.View())
	for _, want := range []string{"no deadline (+inf)", "deadline -inf", "-inf"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "106751d") || strings.Contains(v, "9223372036854775808") {
		t.Errorf("an infinite score shown as a time:\n%s", v)
	}
}

// A JSON payload is indented for reading, and still passes the gate: an
// escape inside a string stays escaped.
func TestPrettyJSON(t *testing.T) {
	got := textgate.Lines(prettyJSON(`{"a":1,"b":["x","\u001b[2J"]}`))
	want := "{\n  \"a\": 1,\n  \"b\": [\n    \"x\",\n    \"\\\\u001b[2J\"\n  ]\n}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, p := range []string{`{"cut": "prev`, "plain text", "\x1b]52;c;eA==\a"} {
		if prettyJSON(p) != p {
			t.Errorf("%q is not whole JSON, yet it changed", p)
		}
	}
}

// An answer of a find in an earlier overlay is never taken by a later one:
// each overlay's sequence once restarted at 0, so a slow answer of the
// first find opened the wrong job in the second.
func TestFindAnswerOfAnEarlierOverlayIsDropped(t *testing.T) {
	src := &fakeFinder{fakeSource: &fakeSource{snap: fixture(30)}, id: liveID, queue: "tenant-12", steps: 3}
	m := ready(src.fakeSource, 120, 40, Options{})
	m.src = src
	m.applyModes() // the source decides whether f is on
	m = press(m, "f")
	for _, r := range liveID {
		m.Update(keyMsg(string(r)))
	}
	_, first := m.Update(keyMsg("enter")) // the first find starts: its answer is held back
	m = press(m, "esc", "f")
	for _, r := range stuckID {
		m.Update(keyMsg(string(r)))
	}
	m.Update(keyMsg("enter")) // the second find starts; the first's answer comes now
	late := first()
	m.Update(late)
	if m.find == nil || m.find.id != stuckID {
		t.Fatalf("the second find's overlay is gone or changed: %+v", m.find)
	}
	if m.detail != nil {
		t.Errorf("the first find's late answer opened %s in the second find", m.detail.job.ID)
	}
	if m.find.search != nil {
		t.Error("the second find took the first one's search")
	}
}

// b previews a rebalancing plan in the nodes pane (the shares now and
// after, the moves, why not), lights the moved slots in their target's
// hue, and sends nothing.
func TestPlanPreview(t *testing.T) {
	s := fixture(30)
	m := ready(&fakeSource{snap: s}, 160, 40, Options{})
	v := press(m, "b").View()
	for _, want := range []string{"Plan · by jobs · previewed: nothing is sent", "NOW", "AFTER", "emqtop rebalance prints its commands"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	pc := m.nodes.current("jobs")
	if pc.err != nil {
		t.Fatal(pc.err)
	}
	if len(pc.plan.Moves) > 0 && len(m.heat.planTo) == 0 {
		t.Error("the moves are not on the heatmap")
	}
	if len(pc.plan.Moves) > 0 && !strings.Contains(v, fmt.Sprintf("slot %d ", pc.plan.Moves[0].Slot)) {
		t.Errorf("the first move is not listed:\n%s", v)
	}
	m.heat.mode = heatCPU
	if v := m.View(); !strings.Contains(v, "no CPU per slot") {
		t.Errorf("a plan by CPU without SLOT-STATS does not say why:\n%s", v)
	}
	if v := press(m, "b").View(); strings.Contains(v, "Plan ·") || m.heat.planTo != nil {
		t.Error("b again does not close the plan")
	}
}

// A job pane's title never cuts a figure: the name is shortened, then the
// position goes whole (at 100 columns it read "rows 1–5 of …").
func TestJobTitleNeverCutsAFigure(t *testing.T) {
	for w := 24; w <= 80; w++ {
		title := fitTitle("Pending", "tenant-007-with-a-long-name", "rows 1–5 of 26", "", w)
		if ansi.StringWidth(title) > w-6 && strings.Contains(title, "rows") {
			t.Errorf("width %d: %q does not fit, and holds the position", w, title)
		}
		if strings.Contains(title, "rows") && !strings.Contains(title, "rows 1–5 of 26") {
			t.Errorf("width %d: the position cut: %q", w, title)
		}
	}
}
