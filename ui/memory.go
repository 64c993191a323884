package ui

import (
	"fmt"
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

// The queue memory: a queue seen in this session stays in the list when
// it empties (its sets vanish and discovery drops it), marked idle with
// since when, until the operator hides idle queues or it has been gone
// for forgetAfter.
const (
	// forgetAfter: a queue fed in bursts (hourly jobs, a tenant at night)
	// is quiet for minutes; an hour keeps it, yet a list of renamed or
	// retired queues does not grow all day.
	forgetAfter = time.Hour
	// rememberMost bounds the memory: past it the longest gone go first.
	rememberMost = 10_000
)

type queueMemory struct {
	idleSince map[string]time.Time   // idle queues (gone or empty), since when; zero: since the start
	gone      map[string]model.Queue // queues the snapshot no longer holds
	goneAt    map[string]time.Time   // when each left it
	last      map[string]uint16      // the queues of the last snapshot, and their slots
	hide      bool                   // idle queues are left out of the list
	hidden    int                    // how many the last apply left out
}

func newQueueMemory() *queueMemory {
	return &queueMemory{idleSince: map[string]time.Time{}, gone: map[string]model.Queue{}, goneAt: map[string]time.Time{}}
}

// empty: none of pending, active, schedule exists (a sorted set of no
// member does not exist), and nothing is wrong with it.
func empty(q *model.Queue) bool {
	return q.Pending+q.Active+q.Scheduled == 0 && q.Err == "" && !q.Stale
}

// idle reports since when q is idle, if it is.
func (mem *queueMemory) idle(name string) (time.Time, bool) {
	if mem == nil {
		return time.Time{}, false
	}
	t, ok := mem.idleSince[name]
	return t, ok
}

// apply learns from s and returns what the session shows: s itself when
// nothing is remembered or hidden (s is shared and never written), else a
// copy with the gone queues added, or the idle ones left out.
func (mem *queueMemory) apply(s *model.Snapshot, now time.Time) *model.Snapshot {
	names := make(map[string]uint16, len(s.Queues))
	for i := range s.Queues {
		q := s.Queues[i]
		names[q.Name] = q.Slot
		delete(mem.gone, q.Name)
		delete(mem.goneAt, q.Name)
		if !empty(q) {
			delete(mem.idleSince, q.Name)
		} else if _, ok := mem.idleSince[q.Name]; !ok {
			since := now
			if mem.last == nil {
				since = time.Time{} // empty in the first snapshot: since when is not known
			}
			mem.idleSince[q.Name] = since
		}
	}
	for name, slot := range mem.last {
		if _, ok := names[name]; ok {
			continue
		}
		if _, ok := mem.gone[name]; ok {
			continue
		}
		if _, ok := mem.idleSince[name]; !ok {
			mem.idleSince[name] = now
		}
		mem.gone[name] = model.Queue{Name: name, Slot: slot, OldestPendingAgeMs: -1}
		mem.goneAt[name] = now
	}
	mem.last = names
	mem.forget(now)
	return mem.shown(s)
}

// forget drops what has been gone for forgetAfter, and the longest gone
// past rememberMost.
func (mem *queueMemory) forget(now time.Time) {
	for name := range mem.gone {
		if now.Sub(mem.goneAt[name]) > forgetAfter {
			mem.drop(name)
		}
	}
	if len(mem.gone) <= rememberMost {
		return
	}
	order := make([]string, 0, len(mem.gone))
	for name := range mem.gone {
		order = append(order, name)
	}
	sort.Slice(order, func(i, j int) bool { return mem.goneAt[order[i]].Before(mem.goneAt[order[j]]) })
	for _, name := range order[:len(order)-rememberMost] {
		mem.drop(name)
	}
}

func (mem *queueMemory) drop(name string) {
	delete(mem.gone, name)
	delete(mem.goneAt, name)
	delete(mem.idleSince, name)
}

// counts is how many idle queues the list shows and how many it hides.
func (mem *queueMemory) counts() (idle, hidden int) {
	if mem == nil {
		return 0, 0
	}
	if mem.hide {
		return 0, mem.hidden
	}
	return len(mem.idleSince), 0
}

// shown builds the session's view of s.
func (mem *queueMemory) shown(s *model.Snapshot) *model.Snapshot {
	mem.hidden = 0
	if !mem.hide && len(mem.gone) == 0 {
		return s
	}
	out := *s
	out.Queues = make([]*model.Queue, 0, len(s.Queues)+len(mem.gone))
	for i := range s.Queues {
		if mem.hide && empty(s.Queues[i]) {
			mem.hidden++
			continue
		}
		out.Queues = append(out.Queues, s.Queues[i])
	}
	if mem.hide {
		mem.hidden += len(mem.gone)
		return &out
	}
	for _, q := range mem.gone {
		if s.Topology != nil {
			if n := s.Topology.OwnerOf(q.Slot); n != nil {
				q.Node = n.Addr
			}
		}
		q.ServerTimeMs = s.ServerTimeMs
		out.Queues = append(out.Queues, &q)
	}
	sort.Slice(out.Queues, func(i, j int) bool { return out.Queues[i].Name < out.Queues[j].Name })
	return &out
}

// toggleIdle hides or shows the idle queues, at once (the snapshot on
// screen is shown again), and says so.
func (m *Model) toggleIdle() tea.Cmd {
	mem := m.c.mem
	mem.hide = !mem.hide
	if m.c.snap == nil {
		return nil
	}
	m.c.snap = mem.shown(m.raw)
	m.c.fold = model.NewFold(m.c.snap)
	m.queues.refresh()
	if mem.hide {
		m.say(fmt.Sprintf("idle queues hidden (%d): i shows them", mem.hidden), false)
	} else {
		idle, _ := mem.counts()
		m.say(fmt.Sprintf("idle queues shown (%d): i hides them", idle), false)
	}
	return m.selectionChanged()
}
