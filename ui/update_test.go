package ui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// updating: go test ./ui -update rewrites the golden files (the flag is
// teatest's, which this package shares).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keys  []string
		check func(t *testing.T, m *Model)
	}{
		{"tab cycles focus", []string{"tab"}, func(t *testing.T, m *Model) {
			if m.focus != paneHeat {
				t.Errorf("focus %v", m.panes[m.focus].name)
			}
		}},
		{"shift+tab goes back", []string{"shift+tab"}, func(t *testing.T, m *Model) {
			if m.focus != paneActive {
				t.Errorf("focus %v", m.panes[m.focus].name)
			}
		}},
		{"j moves down", []string{"j"}, func(t *testing.T, m *Model) {
			if m.queues.sel != 1 {
				t.Errorf("sel %d", m.queues.sel)
			}
		}},
		{"down then up", []string{"down", "down", "k"}, func(t *testing.T, m *Model) {
			if m.queues.sel != 1 {
				t.Errorf("sel %d", m.queues.sel)
			}
		}},
		{"G goes last, g first", []string{"G"}, func(t *testing.T, m *Model) {
			if m.queues.sel != len(m.queues.view)-1 {
				t.Errorf("sel %d of %d", m.queues.sel, len(m.queues.view))
			}
			if m = press(m, "g"); m.queues.sel != 0 {
				t.Errorf("after g sel %d", m.queues.sel)
			}
		}},
		{"page down", []string{"pgdown"}, func(t *testing.T, m *Model) {
			if m.queues.sel == 0 {
				t.Error("pgdown did not move")
			}
		}},
		{"sort cycles", []string{"s"}, func(t *testing.T, m *Model) {
			if m.queues.sortKey.String() != "pending" {
				t.Errorf("sort %v", m.queues.sortKey)
			}
		}},
		{"S reverses", []string{"S"}, func(t *testing.T, m *Model) {
			if !m.queues.reverse {
				t.Error("not reversed")
			}
		}},
		{"keys that arrive in one read count one by one", []string{"jj"}, func(t *testing.T, m *Model) {
			if m.queues.sel != 2 {
				t.Errorf("sel %d after jj in one message, want 2", m.queues.sel)
			}
		}},
		{"a filter typed in one read", []string{"/fil", "enter"}, func(t *testing.T, m *Model) {
			if len(m.queues.view) != 1 || m.queues.name != "fills" || m.queues.filter.capturing() {
				t.Errorf("view %d sel %s filtering %v", len(m.queues.view), m.queues.name, m.queues.filter.capturing())
			}
		}},
		{"filter narrows, esc clears", []string{"/", "f", "i", "l", "enter"}, func(t *testing.T, m *Model) {
			if len(m.queues.view) != 1 || m.queues.name != "fills" || m.queues.filter.capturing() {
				t.Errorf("view %d sel %s filtering %v", len(m.queues.view), m.queues.name, m.queues.filter.capturing())
			}
			if m = press(m, "esc"); len(m.queues.view) < 6 {
				t.Errorf("esc did not clear the filter: %d", len(m.queues.view))
			}
		}},
		{"q while typing is text", []string{"/", "q"}, func(t *testing.T, m *Model) {
			if m.queues.filter.Value() != "q" {
				t.Errorf("filter %q", m.queues.filter.Value())
			}
		}},
		{"p pauses and resumes", []string{"p"}, func(t *testing.T, m *Model) {
			if !m.paused {
				t.Error("not paused")
			}
			if m = press(m, "p"); m.paused {
				t.Error("not resumed")
			}
		}},
		{"+ and - change the interval", []string{"+"}, func(t *testing.T, m *Model) {
			if m.interval != 500*time.Millisecond {
				t.Errorf("interval %v", m.interval)
			}
			if m = press(m, "-", "-"); m.interval != 2*time.Second {
				t.Errorf("interval %v", m.interval)
			}
		}},
		{"< and > change the window", []string{">"}, func(t *testing.T, m *Model) {
			if m.window != 2*time.Minute {
				t.Errorf("window %v", m.window)
			}
		}},
		{"? opens help, any key closes", []string{"?"}, func(t *testing.T, m *Model) {
			if m.helpView == nil || !strings.Contains(m.View(), "Keys") {
				t.Error("no help")
			}
			if m = press(m, "x"); m.helpView != nil {
				t.Error("help stayed")
			}
		}},
		{"heatmap cursor moves by cell", []string{"tab", "right", "right"}, func(t *testing.T, m *Model) {
			if m.heat.cursor <= 105 {
				t.Errorf("cursor at slot %d", m.heat.cursor)
			}
		}},
		{"enter on the active pane opens a job", []string{"shift+tab", "enter"}, func(t *testing.T, m *Model) {
			if m.detail == nil || m.detail.job.ID != stuckID {
				t.Fatal("no detail")
			}
			if h := ansi.Strip(m.helpLine()); !strings.Contains(h, "scroll") || strings.Contains(h, "requeue") {
				t.Errorf("the help line in the detail view names keys it does not take: %q", h)
			}
			if m = press(m, "esc"); m.detail != nil {
				t.Error("esc did not close the detail")
			}
		}},
		{"actions are disabled without Actions", []string{"shift+tab", "r"}, func(t *testing.T, m *Model) {
			if m.dialog != nil || !strings.Contains(m.flash, "read-only") {
				t.Errorf("act %v flash %q", m.dialog, m.flash)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ready(&fakeSource{snap: fixture(40)}, 120, 40, Options{})
			tc.check(t, press(m, tc.keys...))
		})
	}
}

func TestQuit(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{})
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s does not quit", k)
		}
	}
	m = press(m, "/")
	if _, cmd := m.Update(keyMsg("ctrl+c")); cmd == nil {
		t.Error("ctrl+c while typing does not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("ctrl+c while typing does not quit")
	}
}

func TestResize(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{})
	for _, sz := range [][2]int{{80, 24}, {200, 60}, {59, 30}, {100, 15}, {60, 16}, {300, 90}} {
		mm, _ := m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		v := mm.(*Model).View()
		lines := strings.Split(v, "\n")
		small := sz[0] < minW || sz[1] < minH
		if small != strings.Contains(v, "terminal too small (need 60×16") {
			t.Errorf("%v: too-small message wrong", sz)
		}
		if len(lines) != sz[1] {
			t.Errorf("%v: %d lines", sz, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz[0] {
				t.Errorf("%v: line %d is %d wide", sz, i, w)
			}
		}
	}
}

// TestPollLoop: a poll is re-armed only after the previous returned, stale
// ticks are dropped, pause stops the loop.
func TestPollLoop(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	m := ready(src, 120, 40, Options{})
	mm, cmd := m.Update(tickMsg{gen: m.gen})
	m = mm.(*Model)
	if cmd == nil || !m.inFlight {
		t.Fatal("a tick did not start a poll")
	}
	if _, again := m.Update(tickMsg{gen: m.gen}); again != nil {
		t.Error("a second tick started an overlapping poll")
	}
	if _, stale := m.Update(tickMsg{gen: m.gen - 1}); stale != nil {
		t.Error("a stale tick was not dropped")
	}
	mm, next := m.Update(cmd())
	m = mm.(*Model)
	if m.inFlight || next == nil {
		t.Error("the poll's answer did not re-arm the loop")
	}
	m = press(m, "p")
	if _, c := m.Update(tickMsg{gen: m.gen}); c != nil {
		t.Error("paused, yet a tick polled")
	}
}

func TestPollErrorsBackOff(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Interval: time.Second})
	for i := 0; i < 3; i++ {
		mm, _ := m.Update(snapshotMsg{err: errors.New("dial tcp: connection refused\x1b[2J")})
		m = mm.(*Model)
	}
	if m.errs != 3 || m.c.snap == nil {
		t.Errorf("errs %d, snapshot kept %v", m.errs, m.c.snap != nil)
	}
	v := m.View()
	if !strings.Contains(v, "poll failed") || strings.Contains(v, "\x1b[2J") {
		t.Error("the error is not shown, or shown raw")
	}
}

// fakeActions records calls; it answers like the server would.
type fakeActions struct {
	mu       sync.Mutex
	requeued []string
	drained  int
	pending  int
	fenceErr error
}

func (f *fakeActions) Requeue(ctx context.Context, q, id string, attempts int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fenceErr != nil {
		return f.fenceErr
	}
	f.requeued = append(f.requeued, id)
	return nil
}

func (f *fakeActions) RequeueExpired(ctx context.Context, q string, limit int) (int, error) {
	return 2, nil
}

func (f *fakeActions) DrainStep(ctx context.Context, q string, batch int) (int, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := min(batch, f.pending)
	f.pending -= n
	f.drained += n
	return n, f.pending, nil
}

// run runs a command and feeds its message back until none is left.
// run delivers an action's answers, batch after batch, to its end.
func run(m *Model, cmd tea.Cmd) *Model {
	settle(m, cmd, true)
	return m
}

func TestRequeueFlow(t *testing.T) {
	acts := &fakeActions{}
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts})
	m = press(m, "shift+tab", "r")
	if m.dialog == nil || !strings.Contains(m.View(), "attempts  2") || !strings.Contains(m.View(), "ran out 30s ago") {
		t.Fatalf("no confirmation with the fence and the lease:\n%s", m.View())
	}
	m = press(m, "n")
	if m.dialog != nil || len(acts.requeued) != 0 {
		t.Fatal("n did not cancel")
	}
	m = press(m, "r")
	mm, cmd := m.Update(keyMsg("y"))
	m = run(mm.(*Model), cmd)
	if len(acts.requeued) != 1 || acts.requeued[0] != stuckID || !strings.Contains(m.flash, "requeued "+stuckID) {
		t.Errorf("requeued %v, flash %q", acts.requeued, m.flash)
	}
	acts.fenceErr = &model.Refused{Reason: "a worker claimed it again (attempts now 3, you saw 2)"}
	m = press(m, "r")
	mm, cmd = m.Update(keyMsg("y"))
	m = run(mm.(*Model), cmd)
	if !strings.Contains(m.flash, "refused: a worker claimed it again (attempts now 3") {
		t.Errorf("flash %q", m.flash)
	}
}

func TestDrainFlowNeedsTheName(t *testing.T) {
	acts := &fakeActions{pending: 2500}
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts})
	m = press(m, "D", "o", "r", "d", "enter")
	if m.dialog == nil || !m.dialog.a.wrong || acts.drained != 0 {
		t.Fatal("a wrong name was not refused")
	}
	m = press(m, "e", "r", "s")
	mm, cmd := m.Update(keyMsg("enter"))
	m = run(mm.(*Model), cmd)
	if acts.drained != 2500 || m.dialog != nil || !strings.Contains(m.flash, "drained 2500") {
		t.Errorf("drained %d, flash %q", acts.drained, m.flash)
	}
}

func TestReadOnlyDisablesActions(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: &fakeActions{}, ReadOnly: true})
	if m.active.keys.Requeue.Enabled() || m.keys.Drain.Enabled() || m.keys.RequeueAll.Enabled() {
		t.Error("action keys enabled in read-only")
	}
	m = press(m, "D")
	if m.dialog != nil {
		t.Error("D opened a dialog in read-only")
	}
	m = press(m, "esc", "?")
	if !strings.Contains(m.View(), "r, R and D are off because --read-only is set") {
		t.Error("the help does not say why")
	}
	if !strings.Contains(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{ReadOnly: true}).View(), "READ-ONLY") {
		t.Error("status bar lacks READ-ONLY")
	}
}

func TestNoPermTurnsReadOnly(t *testing.T) {
	acts := &fakeActions{fenceErr: model.ErrNoPerm}
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts})
	m = press(m, "shift+tab", "r")
	mm, cmd := m.Update(keyMsg("y"))
	m = run(mm.(*Model), cmd)
	if m.writesOff() == "" || m.active.keys.Requeue.Enabled() || m.keys.Drain.Enabled() || !strings.Contains(m.flash, "NOPERM") {
		t.Errorf("writes off %q, flash %q", m.writesOff(), m.flash)
	}
	if v := press(m, "R").View(); !strings.Contains(v, "READ-ONLY") || !strings.Contains(v, "NOPERM") {
		t.Errorf("R after NOPERM does not say why, or no READ-ONLY mark:\n%s", v)
	}
}

// TestHostileNeverRaw: nothing from the server reaches the screen raw.
func TestHostileNeverRaw(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	src.jobs = map[string]model.JobDetail{stuckID: {Queue: "orders", ID: stuckID, Exists: true, State: "active\x1b[5m", Attempts: "2",
		Payload: hostile + strings.Repeat("A", 64<<10-len(hostile)), PayloadLen: 16 << 20}}
	m := ready(src, 120, 40, Options{})
	m = press(m, "shift+tab", "enter")
	d, _ := src.Job(context.Background(), "orders", stuckID)
	mm, _ := m.Update(jobMsg{queue: "orders", id: stuckID, d: d})
	m = mm.(*Model)
	v := m.View()
	for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[5m", "\x1b[31m"} {
		if strings.Contains(v, bad) {
			t.Errorf("%q reached the screen", bad)
		}
	}
	if !strings.Contains(v, `\x1b]52;c;`) || !strings.Contains(v, "16.0 MiB (showing the first 64.0 KiB)") {
		t.Errorf("the payload is not shown escaped with its size:\n%s", v)
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (run go test ./ui -update after checking the change):\n%s", name, path, got)
	}
}

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		fresh := func() *Model {
			return ready(&fakeSource{snap: fixture(30)}, sz[0], sz[1], Options{Actions: &fakeActions{}})
		}
		name := itoa(sz[0]) + "x" + itoa(sz[1])
		golden(t, "overview-"+name, fresh().View())
		golden(t, "active-"+name, press(fresh(), "shift+tab").View())
	}
	fresh := func() *Model { return ready(&fakeSource{snap: fixture(30)}, 120, 40, Options{Actions: &fakeActions{}}) }
	golden(t, "requeue-120x40", press(fresh(), "shift+tab", "r").View())
	golden(t, "heatmap-120x40", press(fresh(), "tab", "right", "right", "down").View())
	golden(t, "help-120x40", press(fresh(), "?").View())
	golden(t, "mono-120x40", func() string {
		mm := New(&fakeSource{snap: fixture(30)}, asciiTheme("mono"), Options{Now: func() time.Time { return fixedNow }})
		x, _ := mm.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		x, _ = x.Update(snapshotMsg{snap: fixture(30)})
		return x.View()
	}())
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestFixtureIDsAreValid(t *testing.T) {
	for _, id := range []string{stuckID, stuck2ID, liveID, pendID} {
		if err := keyspace.ValidateJobID(id); err != nil {
			t.Error(err)
		}
	}
}

// TestPasteIsNotCommands: a bracketed paste of command keys in the
// dashboard starts nothing; in the filter it is text.
func TestPasteIsNotCommands(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: &fakeActions{}})
	mm, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Djq"), Paste: true})
	m = mm.(*Model)
	if m.dialog != nil || m.queues.sel != 0 {
		t.Fatalf("a paste acted: dialog %v, sel %d", m.dialog != nil, m.queues.sel)
	}
	m = press(m, "/")
	mm, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("fil"), Paste: true})
	m = press(mm.(*Model), "enter")
	if len(m.queues.view) != 1 || m.queues.name != "fills" {
		t.Fatalf("a paste into the filter: view %d sel %s", len(m.queues.view), m.queues.name)
	}
}

// TestEscOneThingAtATime: esc dismisses the last message first and keeps
// the filter; the next esc clears the filter.
func TestEscOneThingAtATime(t *testing.T) {
	m := press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{}), "/", "fil", "enter", "S")
	m.flash = "requeued JOB… of fills"
	if m = press(m, "esc"); m.flash != "" || m.queues.filter.Value() != "fil" {
		t.Fatalf("first esc: flash %q filter %q; want the message gone and the filter kept", m.flash, m.queues.filter.Value())
	}
	if m = press(m, "esc"); m.queues.filter.Value() != "" || len(m.queues.view) < 2 {
		t.Fatalf("second esc: filter %q, %d queues shown", m.queues.filter.Value(), len(m.queues.view))
	}
}

// TestDemoNamedInStatusBar: a demo says so on the first line at every
// size, so it is never taken for production.
func TestDemoNamedInStatusBar(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		m := ready(&fakeSource{snap: fixture(40)}, size[0], size[1], Options{Demo: "embedded demo"})
		first, _, _ := strings.Cut(m.View(), "\n")
		if !strings.Contains(first, "embedded demo") {
			t.Errorf("%dx%d: the status bar does not say it is a demo: %q", size[0], size[1], first)
		}
	}
}

// TestDrainDialogFollowsThePolls: an open drain confirmation shows the
// pending count of the latest poll, not the one it opened on.
func TestDrainDialogFollowsThePolls(t *testing.T) {
	snap := fixture(0)
	m := press(ready(&fakeSource{snap: snap}, 120, 40, Options{Actions: &fakeActions{}}), "D")
	if m.dialog == nil || m.dialog.a.kind != actDrain {
		t.Fatal("D opened no drain dialog")
	}
	before := m.dialog.a.total
	next := *snap
	next.Queues = model.ListOf(snap.Queues.Slice()...)
	for i := range next.Queues.Len() {
		if next.Queues.At(i).Name == m.dialog.a.queue {
			next.Queues.At(i).Pending = before + 1234
		}
	}
	mm, _ := m.Update(snapshotMsg{snap: &next})
	m = mm.(*Model)
	if m.dialog == nil || m.dialog.a.total != before+1234 {
		t.Fatalf("after a poll the dialog says %d pending, want %d", m.dialog.a.total, before+1234)
	}
	if !strings.Contains(m.View(), fmt.Sprintf("%d at the last poll", before+1234)) {
		t.Error("the dialog on screen does not show the new count")
	}
}

// TestEverySize: in every mode (panes, help, job detail, a dialog, the
// filter) and over a sweep of sizes around the layout's thresholds, the
// screen is exactly the terminal's height and no line is wider than it.
func TestEverySize(t *testing.T) {
	modes := map[string][]string{
		"panes":  nil,
		"help":   {"?"},
		"detail": {"shift+tab", "enter"},
		"dialog": {"D"},
		"filter": {"/", "ord"},
	}
	widths := []int{minW - 1, minW, minW + 1, 73, 80, 99, 100, 101, 117, 120, 151, 200}
	heights := []int{minH - 1, minH, minH + 1, 19, 20, 24, 29, 30, 31, 40, 49, 50, 60}
	for name, keys := range modes {
		m := press(ready(&fakeSource{snap: fixture(40)}, 120, 40, Options{Actions: &fakeActions{}}), keys...)
		if in := map[string]bool{"panes": true, "help": m.helpView != nil, "detail": m.detail != nil,
			"dialog": m.dialog != nil, "filter": m.queues.filter.capturing()}[name]; !in {
			t.Fatalf("the keys %v did not put the dashboard in mode %s", keys, name)
		}
		for _, w := range widths {
			for _, h := range heights {
				mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				lines := strings.Split(mm.(*Model).View(), "\n")
				if len(lines) != h {
					t.Errorf("%s at %dx%d: %d lines", name, w, h, len(lines))
				}
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Errorf("%s at %dx%d: line %d is %d wide", name, w, h, i, lw)
						break
					}
				}
			}
		}
	}
}

// TestRequeueFromDetail: r in the detail of an active job opens the
// requeue confirmation of that job, and y requeues it with its attempts.
func TestRequeueFromDetail(t *testing.T) {
	acts := &fakeActions{}
	m := press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts}), "shift+tab", "enter")
	if m.detail == nil || m.detail.job.ID != stuckID {
		t.Fatal("no detail of the stuck job")
	}
	if h := ansi.Strip(m.helpLine()); !strings.Contains(h, "requeue") {
		t.Errorf("the detail of an active job does not offer r: %q", h)
	}
	m = press(m, "r")
	if m.detail != nil || m.dialog == nil || m.dialog.a.kind != actRequeue || m.dialog.a.job.ID != stuckID {
		t.Fatalf("r in the detail: detail %v, dialog %+v", m.detail != nil, m.dialog)
	}
	mm, cmd := m.Update(keyMsg("y"))
	m = run(mm.(*Model), cmd)
	if len(acts.requeued) != 1 || acts.requeued[0] != stuckID {
		t.Errorf("requeued %v, want [%s]", acts.requeued, stuckID)
	}
	// a member that is not a valid id offers no r, and r there does nothing
	m = press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts}), "shift+tab", "j", "j", "enter")
	if m.detail == nil || m.detail.job.Valid {
		t.Fatal("no detail of the invalid member")
	}
	if h := ansi.Strip(m.helpLine()); strings.Contains(h, "requeue") {
		t.Errorf("the detail of an invalid member offers r: %q", h)
	}
	if m = press(m, "r"); m.dialog != nil || m.detail == nil {
		t.Error("r in an invalid member's detail did something")
	}
	// a pending job's detail offers no r, and r there does nothing
	m = press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts}), "shift+tab", "shift+tab", "enter")
	if m.detail == nil || m.detail.active {
		t.Fatalf("no pending job's detail (focus %v)", m.panes[m.focus].name)
	}
	if h := ansi.Strip(m.helpLine()); strings.Contains(h, "requeue") {
		t.Errorf("the detail of a pending job offers r: %q", h)
	}
	if m = press(m, "r"); m.dialog != nil || m.detail == nil {
		t.Error("r in a pending job's detail did something")
	}
}

// A dialog's footer is its own: r pressed off the Active pane says why,
// and the R dialog opened next does not keep those words.
func TestDialogFooterHasNoStaleWords(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: &fakeActions{}})
	v := press(m, "r").View()
	if !strings.Contains(v, "select an active job first") {
		t.Fatalf("r on the queue list says nothing:\n%s", v)
	}
	v = press(m, "R").View()
	if strings.Contains(v, "select an active job first") || !strings.Contains(v, "Requeue every expired job?") {
		t.Errorf("the R dialog keeps the words of before it:\n%s", v)
	}
}

// ? help and q quit are the last keys to leave the help line: at 80 and
// 120 columns with the queue list focused, ? fell off the footer.
func TestHelpKeyStaysOnTheFooter(t *testing.T) {
	for _, w := range []int{80, 100, 120, 200} {
		m := ready(&fakeSource{snap: fixture(0)}, w, 40, Options{Actions: &fakeActions{}})
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		foot := lines[len(lines)-1]
		if !strings.Contains(foot, "? help") || !strings.Contains(foot, "q quit") || strings.Contains(foot, "…") {
			t.Errorf("width %d: the footer is %q", w, foot)
		}
	}
}

// At 100×30 the queue list has its share (it had 3 rows), and the status
// bar keeps the data's age at every width (at 80 columns a demo dropped it).
func TestListShareAndAgeAtSmallSizes(t *testing.T) {
	l := computeLayout(100, 30)
	if rows := l.queues.h - 3; rows < 7 { // the border and the header
		t.Errorf("100×30: the queue list shows %d rows", rows)
	}
	for _, w := range []int{60, 80, 100} {
		m := ready(&fakeSource{snap: fixture(0)}, w, 24, Options{Demo: "demo"})
		if bar := strings.Split(ansi.Strip(m.View()), "\n")[0]; !strings.Contains(bar, " old") {
			t.Errorf("width %d: the status bar has no age: %q", w, bar)
		}
	}
}

// A terminal larger than the cap is drawn at the cap, and said once: a
// client's pty size is a remote's word (serve).
func TestSizeCap(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{MaxWidth: 500, MaxHeight: 300})
	m.Update(tea.WindowSizeMsg{Width: 100000, Height: 60000})
	v := m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != 300 || ansi.StringWidth(lines[0]) != 500 {
		t.Fatalf("drawn %d lines of %d cells", len(lines), ansi.StringWidth(lines[0]))
	}
	if !strings.Contains(v, "this terminal is 100000×60000: drawn as 500×300") {
		t.Error("the cap is not said")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Update(tea.WindowSizeMsg{Width: 2000, Height: 1000})
	if strings.Contains(m.View(), "this terminal is") {
		t.Error("the cap is said again")
	}
}

// rowNames is the queue list's rows, by name, as shown.
func rowNames(m *Model) []string {
	var out []string
	for _, qi := range m.queues.view {
		out = append(out, m.queues.c.fold.Snap.Queues.At(qi).Name)
	}
	return out
}

// o holds the rows' order while the figures move (the live sort reordered
// them every poll); a new queue goes last; o again follows the sort.
func TestHoldTheOrder(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	m := ready(src, 120, 40, Options{})
	names := func() []string { return rowNames(m) }
	press(m, "o")
	before := names()
	next := fixture(0)
	for i := range next.Queues.Len() { // the counts turn over: a live sort would reverse the rows
		next.Queues.At(i).Expired = int64(100 - i)
	}
	next.Queues = next.Queues.Append(&model.Queue{Name: "zz-new", Expired: 1000, OldestPendingAgeMs: -1})
	next.TakenAt = next.TakenAt.Add(time.Second)
	m.Update(snapshotMsg{snap: next, seq: m.pollSeq})
	after := names()
	if strings.Join(after[:len(before)], ",") != strings.Join(before, ",") || after[len(after)-1] != "zz-new" {
		t.Errorf("held: %v became %v", before, after)
	}
	if !strings.Contains(m.View(), "order held") {
		t.Error("the title does not say the order is held")
	}
	press(m, "o")
	if names()[0] != "zz-new" {
		t.Errorf("o again: the sort (expired, most first) does not lead with zz-new: %v", names())
	}
}

// o holds the order across snapshots made as the poller makes them (by
// name, the other queues carried): the held rows follow the queues by
// difference, with the same queues and with one arriving and one going,
// and they stay where they were held while read anew.
func TestHoldTheOrderByDifference(t *testing.T) {
	base := fixture(300)
	base.Queues = byNameList(base.Queues)
	base.ByName = true
	m := ready(&fakeSource{snap: base}, 120, 40, Options{})
	names := func() []string { return rowNames(m) }
	press(m, "o")
	held := names()
	cur := base
	for round := range 4 {
		next := *cur
		var idx []int
		var put []*model.Queue
		for i := round; i < next.Queues.Len(); i += 37 { // new readings a live sort puts first
			q := *next.Queues.At(i)
			q.Expired = int64(1000 + i)
			idx, put = append(idx, i), append(put, &q)
		}
		next.Queues = next.Queues.With(idx, put)
		want := held
		if round == 2 { // one goes (remembered: it keeps its row), one arrives (last: it was not held)
			gone := next.Queues.At(5).Name
			qs := slices.DeleteFunc(next.Queues.Slice(), func(q *model.Queue) bool { return q.Name == gone })
			qs = append(qs, &model.Queue{Name: "zzz-new", Expired: 5000, OldestPendingAgeMs: -1})
			next.Queues = model.ListOf(qs...)
			want = append(slices.Clone(held), "zzz-new")
		}
		next.TakenAt = cur.TakenAt.Add(time.Second)
		ranks := &m.queues.held[0]
		m.Update(snapshotMsg{external: true, snap: &next})
		if m.raw != &next {
			t.Fatalf("round %d: the snapshot was not taken", round)
		}
		if same := ranks == &m.queues.held[0]; same != (round != 2) {
			t.Errorf("round %d: the held rows were carried in place: %v (want: with the same queues alone)", round, same)
		}
		if got := names(); !slices.Equal(got, want) {
			t.Fatalf("round %d: held %d rows, now %d; first %v, want %v", round, len(want), len(got), got[:5], want[:5])
		}
		held, cur = want, &next
	}
}

// /status:stuck keeps the queues whose STATUS says stuck.
func TestFilterByStatus(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(0)}, 160, 40, Options{})
	press(m, "/", "s", "t", "a", "t", "u", "s", ":", "s", "t", "u", "c", "k", "enter")
	var got []string
	for _, qi := range m.queues.view {
		q := m.queues.c.fold.Snap.Queues.At(qi)
		got = append(got, q.Name)
		if q.Expired == 0 {
			t.Errorf("%s kept by /status:stuck with nothing expired", q.Name)
		}
	}
	if len(got) == 0 {
		t.Fatal("/status:stuck kept nothing; the fixture has stuck queues")
	}
	if !strings.Contains(m.View(), "filter /status:stuck") {
		t.Error("the title does not say the filter")
	}
}

// /status:<word> keeps the rows whose STATUS text starts with it (and
// /status:down the queues of a node down), read without rendering the
// text of every queue: the same rows as the rendered text gives, for each
// kind, a prefix of two, the empty word, and a word past the first.
func TestFilterByStatusIsTheColumn(t *testing.T) {
	s := fixture(40)
	for i := range s.Queues.Len() {
		q := s.Queues.At(i)
		switch i % 9 {
		case 1:
			q.Stale = true
		case 2:
			q.Err = "WRONGTYPE emq:{" + q.Name + "}:active"
			q.Pending, q.Active, q.Expired = 0, 0, 0
		case 3:
			q.Pending, q.Active, q.Expired, q.OldestPendingAgeMs, q.OldestScoreMs = 4, 0, 0, 600_000, s.ServerTimeMs-600_000
		}
	}
	s.Queue("orders").Expired = 0 // its past grows: growing, once not stuck
	m := ready(&fakeSource{snap: s}, 160, 40, Options{})
	kinds := map[string]int{}
	for _, want := range []string{"stuck", "st", "stalled", "growing", "error", "node", "node down", "down", "", "stuck: 1 expired", "x"} {
		m.queues.filter.SetValue("status:" + want)
		m.queues.refresh()
		var got, ref []string
		for _, qi := range m.queues.view {
			got = append(got, m.c.fold.Snap.Queues.At(qi).Name)
		}
		snap := m.c.fold.Snap
		for _, qi := range m.c.fold.View("", m.queues.sortKey, m.queues.reverse) {
			q := snap.Queues.At(qi)
			text := ansi.Strip(queueStatus(m.c.th, q, snap.Trend(q), snap.OldestAge(q)))
			if text != "" && strings.HasPrefix(text, want) || want == "down" && q.Stale {
				ref = append(ref, q.Name)
			}
		}
		if !slices.Equal(got, ref) {
			t.Errorf("/status:%s keeps %v, the text says %v", want, got, ref)
		}
		kinds[want] = len(got)
	}
	for _, want := range []string{"stuck", "stalled", "growing", "error", "node", "down"} {
		if kinds[want] == 0 {
			t.Errorf("no queue is %s: the fixture proves nothing of it", want)
		}
	}
}

// TestDialogTimesOnTheSessionClock: a running action says how long it has
// run by the session's clock (it read the machine's, so a test clock or a
// replay said 0s whatever had passed).
func TestDialogTimesOnTheSessionClock(t *testing.T) {
	m := press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: &fakeActions{}}), "R")
	if m.dialog == nil {
		t.Fatal("R opened no dialog")
	}
	now := fixedNow
	m.c.now = func() time.Time { return now }
	m.Update(keyMsg("y")) // confirmed; its first script is not run here
	if m.dialog == nil || !m.dialog.a.running {
		t.Fatal("the requeue of the expired jobs did not start")
	}
	now = now.Add(90 * time.Second)
	if v := m.View(); !strings.Contains(v, "(1m30s)") {
		t.Errorf("after 90s on the session's clock the dialog does not say 1m30s:\n%s", v)
	}
}
