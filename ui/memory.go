package ui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
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
	last      model.QueueList        // the queues of the last snapshot, by name
	seen      bool                   // a snapshot was applied
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
// copy with the gone queues added, or the idle ones left out. The last
// snapshot's queues and s's are walked side by side, by name: a queue the
// poller carried is the same *Queue, nothing of it changed, and costs a
// pointer compare (no map of every name, per poll, at a million queues).
func (mem *queueMemory) apply(s *model.Snapshot, now time.Time) *model.Snapshot {
	qs := byName(s)
	learn := func(q *model.Queue) {
		if len(mem.gone) > 0 {
			delete(mem.gone, q.Name)
			delete(mem.goneAt, q.Name)
		}
		if !empty(q) {
			delete(mem.idleSince, q.Name)
		} else if _, ok := mem.idleSince[q.Name]; !ok {
			since := now
			if !mem.seen {
				since = time.Time{} // empty in the first snapshot: since when is not known
			}
			mem.idleSince[q.Name] = since
		}
	}
	last := mem.last
	carried := func(lo, hi int) bool { return true } // a chunk both share: nothing changed
	model.WalkByName(qs, last, carried, func(i, j int) bool {
		switch {
		case i >= 0 && j >= 0 && qs.At(i) == last.At(j): // carried: nothing changed
		case i >= 0: // new, or a new reading
			learn(qs.At(i))
		default: // gone
			name := last.At(j).Name
			if _, ok := mem.gone[name]; !ok {
				if _, ok := mem.idleSince[name]; !ok {
					mem.idleSince[name] = now
				}
				mem.gone[name] = model.Queue{Name: name, Slot: last.At(j).Slot, OldestPendingAgeMs: -1}
				mem.goneAt[name] = now
			}
		}
		return true
	})
	mem.last, mem.seen = qs, true
	mem.forget(now)
	return mem.shown(s)
}

// byName is s's queues sorted by name, each once: s.Queues itself when it
// is (the poller's snapshots say so), else a sorted copy.
func byName(s *model.Snapshot) model.QueueList {
	qs := s.Queues
	if s.ByName {
		return qs
	}
	for i := 1; i < qs.Len(); i++ {
		if qs.At(i-1).Name >= qs.At(i).Name {
			out := qs.Slice()
			slices.SortStableFunc(out, func(a, b *model.Queue) int { return strings.Compare(a.Name, b.Name) })
			return model.ListOf(slices.CompactFunc(out, func(a, b *model.Queue) bool { return a.Name == b.Name })...)
		}
	}
	return qs
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

// shown builds the session's view of s: the gone queues merged in by
// name (s is sorted by name), or the idle ones left out.
func (mem *queueMemory) shown(s *model.Snapshot) *model.Snapshot {
	mem.hidden = 0
	if !mem.hide && len(mem.gone) == 0 {
		return s
	}
	out := *s
	var list model.QueueListBuilder
	if mem.hide {
		for _, q := range s.Queues.All() {
			if empty(q) {
				mem.hidden++
				continue
			}
			list.Add(q)
		}
		mem.hidden += len(mem.gone)
		out.Queues = list.List()
		return &out
	}
	gone := make([]*model.Queue, 0, len(mem.gone))
	for _, g := range mem.gone {
		q := g
		if s.Topology != nil {
			if n := s.Topology.OwnerOf(q.Slot); n != nil {
				q.Node = model.RefOf(n.Addr)
			}
		}
		q.ServerTimeMs = s.ServerTimeMs
		gone = append(gone, &q)
	}
	slices.SortFunc(gone, func(a, b *model.Queue) int { return strings.Compare(a.Name, b.Name) })
	qs, i := byName(s), 0
	out.ByName = true
	for i < qs.Len() || len(gone) > 0 {
		if len(gone) == 0 || (i < qs.Len() && qs.At(i).Name < gone[0].Name) {
			list.Add(qs.At(i))
			i++
		} else {
			list.Add(gone[0])
			gone = gone[1:]
		}
	}
	out.Queues = list.List()
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
