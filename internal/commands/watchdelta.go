package commands

import (
	"slices"
	"sort"
	"strings"

	"github.com/echomq/emqtop/model"
)

// The stream's lines after the first carry the queues whose figures
// changed, as kubectl get -w does (issue 24: one whole line of a million
// queues a second is not a stream anyone can read). --whole gives every
// queue on every line.

// Queues a line carries, its queues_are field.
const (
	queuesAll     = "all"     // every queue: the first line, or --whole
	queuesChanged = "changed" // the queues whose figures changed since the line before, and gone names those it no longer has
)

// A queue is sent again when its last change passes the fine past and
// then model.TrendSettles, so its trend reads settled.

// sent is what a queue's line said: the figures a change is judged by.
type sent struct {
	name                                          string
	slot                                          uint16
	node, err                                     string
	stale                                         bool
	pending, active, scheduled, expired, oldestMs int64
}

func sentOf(q *model.Queue) sent {
	return sent{name: q.Name, slot: q.Slot, node: q.Node.Addr(), err: q.Err, stale: q.Stale, pending: q.Pending,
		active: q.Active, scheduled: q.Scheduled, expired: q.Expired, oldestMs: q.OldestScoreMs}
}

// deltas remembers what the stream said, to send only what changed, at
// the cost of what changed: the last snapshot's queues (their chunks
// shared with the next one's) are walked against the next by name, a
// queue carried (the same *Queue) passed without a look; a million queues
// made a 96 MB copy of every queue's figures a line.
type deltas struct {
	whole   bool
	started bool
	last    model.QueueList // the last line's snapshot's queues, by name
	// the clock of the line before: its oldest fine poll and its time
	fineStart, nowMs int64
	// recent: the queues whose last change may yet settle (within
	// TrendSettles), with its time; only they can be sent for a trend that
	// settled
	recent []change
}

// change is a queue's last change, as its past said when it was noted.
type change struct {
	name string
	at   int64
}

// pick says which of the snapshot's queues the line carries (their
// indexes, ascending), the names it no longer has, and the line's
// queues_are.
func (d *deltas) pick(s *model.Snapshot) (idx []int, gone []string, are string) {
	fineStart, nowMs := s.Clock.FineStart(), s.Clock.NowMs()
	qs, first := s.Queues, !d.started
	idx = []int{} // none changed: an empty list, not every queue
	switch {
	case d.whole || first:
		for i, q := range qs.All() {
			idx = append(idx, i)
			if !d.whole {
				d.note(q)
			}
		}
	default:
		last := d.last
		carried := func(lo, hi int) bool { return true } // a chunk both share: nothing changed
		model.WalkByName(qs, last, carried, func(i, j int) bool {
			switch {
			case i >= 0 && j >= 0 && qs.At(i) == last.At(j): // carried
			case i >= 0 && j >= 0: // a new reading
				q, p := qs.At(i), last.At(j)
				if sentOf(q) != sentOf(p) {
					idx = append(idx, i)
				}
				if q.Past.LastChangeMs() != p.Past.LastChangeMs() {
					d.note(q)
				}
			case i >= 0: // new
				idx = append(idx, i)
				d.note(qs.At(i))
			default:
				gone = append(gone, last.At(j).Name)
			}
			return true
		})
		idx = d.settledNow(qs, idx, fineStart, nowMs)
	}
	d.started, d.last, d.fineStart, d.nowMs = true, qs, fineStart, nowMs
	if d.whole || first {
		return idx, nil, queuesAll
	}
	if gone == nil {
		gone = []string{}
	}
	return idx, gone, queuesChanged
}

// note keeps q's last change among the recent ones.
func (d *deltas) note(q *model.Queue) {
	if at := q.Past.LastChangeMs(); at != 0 {
		d.recent = append(d.recent, change{q.Name, at})
	}
}

// settledNow adds to idx the queues whose last change passed, since the
// line before, out of the fine past or out of TrendSettles (their trend
// moved with no new reading), and drops the changes too old to settle
// again. idx comes back ascending, each queue once.
func (d *deltas) settledNow(qs model.QueueList, idx []int, fineStart, nowMs int64) []int {
	long := model.TrendSettles.Milliseconds()
	keep := d.recent[:0]
	added := false
	for _, c := range d.recent {
		if c.at < nowMs-long {
			if c.at >= d.nowMs-long { // it settles now, for the last time
				added = d.sendIfLast(qs, c, &idx) || added
			}
			continue
		}
		if c.at >= d.fineStart && c.at < fineStart {
			added = d.sendIfLast(qs, c, &idx) || added
		}
		keep = append(keep, c)
	}
	clear(d.recent[len(keep):])
	d.recent = keep
	if added {
		slices.Sort(idx)
		idx = slices.Compact(idx)
	}
	return idx
}

// sendIfLast adds c's queue to idx when c is still its last change.
func (d *deltas) sendIfLast(qs model.QueueList, c change, idx *[]int) bool {
	i, ok := sort.Find(qs.Len(), func(i int) int { return strings.Compare(c.name, qs.At(i).Name) })
	if !ok || qs.At(i).Past.LastChangeMs() != c.at {
		return false
	}
	*idx = append(*idx, i)
	return true
}
