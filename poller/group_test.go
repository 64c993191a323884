package poller

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// Grouped calls (a primary's small batches in one script, their keys
// undeclared) read what a script a slot reads, a queue of the wrong type
// included, in a call a primary; and a queue whose slot is moving, its
// keys already on the target, is what its slot's own script makes of it
// (the source's server refuses the undeclared key, and the batch is read
// by its own script, which follows the redirect): never a zero for a key
// that is not there.
func TestGroupedCallsReadWhatSlotsRead(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	wants := map[string]want{}
	var names []string
	for i := range 40 {
		q := fmt.Sprintf("g-%02d", i)
		wants[q], names = want{pending: int64(1 + i%5), active: int64(i % 3), expired: int64(i % 2)}, append(names, q)
	}
	fill(t, c, wants)
	const bad = "g-bad" // its pending set a string
	pk, _ := keyspace.QueueKey(bad, keyspace.TypePending)
	if err := c.Do(ctx, c.B().Set().Key(pk).Value("x").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	all := append(names, bad)
	grouped := New(c, Options{Pinned: all, Full: true})
	defer grouped.Close()
	single := New(c, Options{Pinned: all, Full: true, NoGroup: true})
	defer single.Close()
	sg, ss := pollN(t, grouped, 1), pollN(t, single, 1)
	checkCounts(t, sg, wants)
	if sg.Poll.Scripts > 3 || ss.Poll.Scripts != len(all) {
		t.Errorf("scripts: %d grouped (want a call a primary, 3 at most), %d a slot each (want %d)", sg.Poll.Scripts, ss.Poll.Scripts, len(all))
	}
	for _, q := range all {
		g, o := sg.Queue(q), ss.Queue(q)
		if g == nil || o == nil || g.Name != q || g.Slot != o.Slot || !sameReading(g, o, o.Node.Addr()) {
			t.Errorf("%s: grouped %+v, by its slot %+v", q, g, o)
		}
	}
	if q := sg.Queue(bad); q == nil || !strings.Contains(q.Err, "WRONGTYPE") {
		t.Errorf("the queue of the wrong type, grouped: %+v", q)
	}

	// a slot moving away, every key of its queue on the target already
	q := names[7]
	slot := int(keyspace.QueueSlot(q))
	m, _, to, err := cl.BeginMoveAway(slot)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.MigrateAll(); err != nil {
		t.Fatal(err)
	}
	s, o := pollN(t, grouped, 1), pollN(t, single, 1)
	got, byslot := s.Queue(q), o.Queue(q)
	if got == nil || byslot == nil || got.Err != byslot.Err || got.Pending != wants[q].pending || got.Active != wants[q].active+wants[q].expired {
		t.Errorf("%s mid-move, grouped: %+v; by its slot: %+v; want what its slot's own script says, and its figures (%+v)", q, got, byslot, wants[q])
	}
	if s.Poll.Scripts <= sg.Poll.Scripts {
		t.Errorf("mid-move: %d scripts, as many as before the move (%d): the moving slot was not read by its own script", s.Poll.Scripts, sg.Poll.Scripts)
	}
	for _, name := range names {
		if name != q && s.Queue(name).Err != "" {
			t.Errorf("mid-move, %s failed: %s", name, s.Queue(name).Err)
		}
	}
	if err := m.Finish(); err != nil {
		t.Fatal(err)
	}
	s = pollUntil(t, grouped, q+" read on its new owner", func(s *model.Snapshot) bool {
		got := s.Queue(q)
		return got != nil && got.Node.Addr() == cl.Nodes[to].Addr()
	})
	checkCounts(t, s, wants)
}

// BenchmarkGroupedServerTime: what a poll reading 1,000 queues of 100,000
// (each in a slot of its own, mostly, as a change-driven poll's written
// queues) costs the servers and the client, grouped and a script a slot:
// the servers' time in EVALSHA_RO and in all commands a poll
// (commandstats, the three primaries), the calls, emqtop's CPU a poll.
//
//	go test ./poller -run '^$' -bench GroupedServerTime -benchtime 20x
func BenchmarkGroupedServerTime(b *testing.B) {
	cl := testcluster.ForTest(b, testcluster.Options{Primaries: 3})
	c := vtest.Client(b, cl)
	names := seedQueues(b, c, 100_000)
	r := rand.New(rand.NewPCG(1, 2))
	var read []string
	for _, i := range r.Perm(len(names))[:1000] {
		read = append(read, names[i])
	}
	for _, mode := range []string{"grouped", "a-script-a-slot"} {
		b.Run(mode, func(b *testing.B) {
			p := New(c, Options{Pinned: read, Full: true, NoGroup: mode != "grouped"})
			defer p.Close()
			for range 2 { // the plan made, the script loaded
				if _, err := p.Poll(ctx); err != nil {
					b.Fatal(err)
				}
			}
			s0, a0, c0 := serverUsec(b, cl, 3)
			cpu0 := processCPU()
			polls := 0
			for b.Loop() {
				if _, err := p.Poll(ctx); err != nil {
					b.Fatal(err)
				}
				polls++
			}
			s1, a1, c1 := serverUsec(b, cl, 3)
			n := float64(polls)
			b.ReportMetric(float64(s1-s0)/n, "script-us/poll")
			b.ReportMetric(float64(a1-a0)/n, "server-us/poll")
			b.ReportMetric(float64(c1-c0)/n, "calls/poll")
			b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/n/1000, "cpu-ms/poll")
		})
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
