package ui

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// fakeSource serves fixed snapshots and records what the UI asked of it.
type fakeSource struct {
	mu     sync.Mutex
	snap   *model.Snapshot
	polls  int
	detail []string
	window time.Duration
	jobs   map[string]model.JobDetail
}

func (f *fakeSource) Poll(ctx context.Context) (*model.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	s := *f.snap
	return &s, nil
}

func (f *fakeSource) SetDetail(q ...string) {
	f.mu.Lock()
	f.detail = q
	f.mu.Unlock()
}

func (f *fakeSource) SetWindow(w time.Duration) {
	f.mu.Lock()
	f.window = w
	f.mu.Unlock()
}

func (f *fakeSource) Job(ctx context.Context, q, id string) (model.JobDetail, error) {
	if d, ok := f.jobs[id]; ok {
		return d, nil
	}
	return model.JobDetail{Queue: q, ID: id}, nil
}

// fixedNow is the server clock of the fixture.
var fixedNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

const (
	stuckID  = "JOB01JDS8X4K2M4N5P6Q7R8S9T0VW"
	stuck2ID = "JOB01JDS8X4K9Q2ZB7C3D4E5F6GHJ"
	liveID   = "JOB01JDS8X4M1A2B3C4D5E6F7G8H3"
	pendID   = "JOB01JDS8X4P0A9B8C7D6E5F4G3H4"
	hostile  = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J{\"evil\":true}"
)

// fixture is three nodes, stuck jobs, a hostile payload and a queue that
// shares a slot with another.
func fixture(extra int) *model.Snapshot {
	now := fixedNow.UnixMilli()
	nodes := []model.Node{
		{ID: "aaaaaaaa", Addr: "127.0.0.1:7000", Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 0, Hi: 5460}}},
		{ID: "bbbbbbbb", Addr: "127.0.0.1:7001", Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 5461, Hi: 10922}}},
		{ID: "cccccccc", Addr: "127.0.0.1:7002", Role: model.RolePrimary, Health: "online", Slots: []model.Range{{Lo: 10923, Hi: 16383}}},
		{ID: "dddddddd", Addr: "127.0.0.1:7003", Role: model.RoleReplica, Health: "online", PrimaryID: "aaaaaaaa"},
	}
	topo := model.NewTopology(true, nodes)
	s := &model.Snapshot{Target: "127.0.0.1:7000", Cluster: true, ServerTimeMs: now, TakenAt: fixedNow, Version: "2", Topology: topo}
	for i := -30; i <= 30; i++ {
		s.Edges = append(s.Edges, int64(i)*2000)
	}
	s.Poll = model.PollStats{Read: "changes", Why: map[string]int{"dirty": 3}, Budget: 0.02, SweepEvery: time.Minute}
	for i, n := range topo.Nodes {
		ns := model.NodeStatus{Node: n, Latency: 400 * time.Microsecond, LastGood: fixedNow}
		if n.Role == model.RolePrimary {
			ns.Tracking, ns.Load = true, 0.001*float64(i+2)
		}
		s.Nodes = append(s.Nodes, ns)
	}
	owner := func(q string) model.NodeRef { return model.RefOf(topo.OwnerOf(keyspace.QueueSlot(q)).Addr) }
	hist := make([]int64, len(s.Edges)+1)
	hist[15], hist[28], hist[45], hist[len(hist)-1] = 1, 1, 1, 2
	orders := model.Queue{Name: "orders", Slot: 105, Node: owner("orders"), Pending: 5, Active: 5, Expired: 2,
		OldestPendingAgeMs: 41000, ServerTimeMs: now, Detail: true, Jobs: &model.Jobs{Hist: hist,
			Pending: []model.Job{{ID: pendID, Valid: true, Score: now - 12000, AttemptsOK: true}},
			Active: []model.Job{
				{ID: stuckID, Valid: true, Score: now - 30000, Attempts: 2, AttemptsOK: true},
				{ID: stuck2ID, Valid: true, Score: now - 5000, Attempts: 1, AttemptsOK: true},
				{ID: "x}:evil\x1b[31m", Valid: false, Score: now - 1000, AttemptsWhy: model.AttemptsInvalidID},
				{ID: liveID, Valid: true, Score: now + 598000, Attempts: 1, AttemptsOK: true},
			}}}
	s.Queues = s.Queues.Append(&orders,
		&model.Queue{Name: "fills", Slot: 4165, Node: owner("fills"), Active: 1, Expired: 1, OldestPendingAgeMs: -1, ServerTimeMs: now},
		&model.Queue{Name: "tenant-12", Slot: keyspace.QueueSlot("tenant-12"), Node: owner("tenant-12"), Pending: 3, OldestPendingAgeMs: 2000, ServerTimeMs: now},
		&model.Queue{Name: "broken", Slot: keyspace.QueueSlot("broken"), Node: owner("broken"), OldestPendingAgeMs: -1,
			Err: "WRONGTYPE emq:{broken}:active is not a sorted set"},
	)
	a, b := keyspace.SlotMates("tenant-")
	s.Queues = s.Queues.Append(
		&model.Queue{Name: a, Slot: keyspace.QueueSlot(a), Node: owner(a), Pending: 7, OldestPendingAgeMs: 3000, ServerTimeMs: now},
		&model.Queue{Name: b, Slot: keyspace.QueueSlot(b), Node: owner(b), Pending: 1, Active: 1, OldestPendingAgeMs: 1000, ServerTimeMs: now})
	bulk := make([]*model.Queue, extra) // appended at once: Append copies the list's chunk table
	for i := range bulk {
		q := fmt.Sprintf("bulk-%05d", i)
		bulk[i] = &model.Queue{Name: q, Slot: keyspace.QueueSlot(q), Node: owner(q),
			Pending: int64(i % 97), Active: int64(i % 7), Expired: int64(i % 13 / 12), OldestPendingAgeMs: int64(i), ServerTimeMs: now}
	}
	s.Queues = s.Queues.Append(bulk...)
	// the past, from a real history: orders growing with a gap where a
	// node did not answer and leases expired for 95 s, fills draining,
	// tenant-12 steady
	withPast(s, 120, map[string]func(i int) ([model.Metrics]int64, bool){
		"orders": func(i int) ([model.Metrics]int64, bool) {
			if i >= 90 && i < 95 { // a whole bucket of the sparkline
				return [model.Metrics]int64{}, false
			}
			v := [model.Metrics]int64{model.MPending: int64(i/12 - 4), model.MActive: int64(3 + i%3)}
			if i >= 25 {
				v[model.MExpired] = 2
			}
			return v, true
		},
		"fills": func(i int) ([model.Metrics]int64, bool) {
			return [model.Metrics]int64{model.MPending: int64(max(0, 60-i/2)), model.MActive: 1, model.MExpired: 1}, true
		},
		"tenant-12": func(int) ([model.Metrics]int64, bool) {
			return [model.Metrics]int64{model.MPending: 3}, true
		},
	})
	s.TotalSpark = []int32{10, 11, 12, 12, 13, 13, model.Gap, 14, 15, 15, 16, 16}
	s.TotalTrend = model.Trend{NetOK: true, Direction: model.Growing, PendingNet: 0.3}
	s.ForeignKeys = []model.ForeignKey{{Key: "emq:{a}}:pending", Reason: "malformed"}}
	s.ForeignCount = 1
	for i := range s.Queues.Len() {
		q := s.Queues.At(i)
		n := &s.Nodes[topo.Owner[q.Slot]]
		n.Queues++
		n.Pending += q.Pending
		n.Active += q.Active
		n.Expired += q.Expired
	}
	return s
}

// asciiTheme renders with no colour, as the golden files are.
func asciiTheme(name string) *theme.Theme {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	th, err := theme.New(r, name)
	if err != nil {
		panic(err)
	}
	return th
}

// ready is a model that has its first snapshot, sized w×h.
func ready(src *fakeSource, w, h int, opt Options) *Model {
	opt.Now = func() time.Time { return fixedNow.Add(400 * time.Millisecond) }
	if opt.Window == 0 {
		opt.Window = time.Minute // fixed, as --window gives it; TestWindowFitted fits it
	}
	if opt.Target == "" {
		opt.Target = "127.0.0.1:7000"
	}
	m := New(src, asciiTheme("dark"), opt)
	m.c.tick = testTick
	mm, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	s, _ := src.Poll(context.Background())
	mm, _ = mm.Update(snapshotMsg{snap: s})
	return mm.(*Model)
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		return tea.KeyMsg{Type: tea.KeyShiftTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends keys in order and hands the root what its components send
// it (settle); no async work (polls, ticks, job reads, actions) is run.
func press(m *Model, keys ...string) *Model {
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		settle(m, cmd, false)
	}
	return m
}

// tickedMsg is what a tick answers in the tests: at once, with the message
// it would have sent after d. settle delivers the find's paced steps and
// drops the rest (the clock, the next poll, a settled selection): tests
// drive those explicitly.
type tickedMsg struct {
	d   time.Duration
	msg tea.Msg
}

func testTick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg { return tickedMsg{d, fn(fixedNow.Add(d))} }
}

// settle runs cmd, and every command it leads to, to its answer, and
// delivers to the root every message a component sends it, and with async
// the answers of job reads, actions and finds too, until none is left.
// Polls are never delivered: tests drive them explicitly. A command that
// does not answer in 10s is a hung test, said as such.
func settle(m *Model, cmd tea.Cmd, async bool) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		got := make(chan tea.Msg, 1)
		go func() { got <- c() }()
		var msg tea.Msg
		select {
		case msg = <-got:
		case <-time.After(10 * time.Second):
			panic("settle: a command gave no answer in 10s (a tick not made by common.tick?)")
		}
		if t, ok := msg.(tickedMsg); ok {
			if _, step := t.msg.(findNextMsg); !step || !async {
				continue
			}
			msg = t.msg
		}
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case focusMsg, selectQueueMsg, flashMsg, closeMsg, openJobMsg, requeueMsg, actionDoneMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		case jobMsg, actionMsg, findStartedMsg, findStepMsg, findNextMsg, foundMsg:
			if async {
				_, next := m.Update(msg)
				queue = append(queue, next)
			}
		}
	}
}

// withPast gives the snapshot's queues a past from a real history: polls
// one a second up to the snapshot's time, queue q's values at poll i from
// f[q] (false: a gap, its node did not answer).
func withPast(s *model.Snapshot, polls int, f map[string]func(i int) ([model.Metrics]int64, bool)) {
	h := model.NewHistory()
	end := s.TakenAt.UnixMilli()
	for i := 0; i < polls; i++ {
		h.Begin(end - int64(polls-1-i)*1000)
		for name, at := range f {
			if v, ok := at(i); ok {
				h.Put(name, v)
			} else {
				h.Gap(name)
			}
		}
	}
	s.Clock = h.Clock()
	for i := range s.Queues.Len() {
		s.Queues.At(i).Past = h.Past(s.Queues.At(i).Name)
	}
}
