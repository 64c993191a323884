package commands

import "github.com/echomq/emqtop/model"

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
	return sent{name: q.Name, slot: q.Slot, node: q.Node, err: q.Err, stale: q.Stale, pending: q.Pending,
		active: q.Active, scheduled: q.Scheduled, expired: q.Expired, oldestMs: q.OldestScoreMs}
}

// deltas remembers what the stream said, to send only what changed.
type deltas struct {
	whole bool
	last  []sent // by name, as the snapshots sort them; nil before the first line
	// the clock of the line before: its oldest fine poll and its time
	fineStart, nowMs int64
}

// pick says which of the snapshot's queues the line carries (their
// indexes), the names it no longer has, and the line's queues_are. It
// walks the two name-sorted lists side by side: no map, no trend derived
// for a queue not sent.
func (d *deltas) pick(s *model.Snapshot) (idx []int, gone []string, are string) {
	fineStart, nowMs := s.Clock.FineStart(), s.Clock.NowMs()
	first := d.last == nil
	next := make([]sent, s.Queues.Len())
	idx = []int{} // none changed: an empty list, not every queue
	j := 0
	for i := range s.Queues.Len() {
		q := s.Queues.At(i)
		next[i] = sentOf(q)
		for j < len(d.last) && d.last[j].name < q.Name {
			gone = append(gone, d.last[j].name)
			j++
		}
		changed := true
		if j < len(d.last) && d.last[j].name == q.Name {
			changed = d.last[j] != next[i]
			j++
		}
		if d.whole || first || changed || d.settled(q, fineStart, nowMs) {
			idx = append(idx, i)
		}
	}
	for ; j < len(d.last); j++ {
		gone = append(gone, d.last[j].name)
	}
	d.last, d.fineStart, d.nowMs = next, fineStart, nowMs
	if d.whole || first {
		return idx, nil, queuesAll
	}
	if gone == nil {
		gone = []string{}
	}
	return idx, gone, queuesChanged
}

// settled reports whether q's last change passed, since the line before,
// out of the fine past or out of trendSettles: its trend moved with no
// new reading.
func (d *deltas) settled(q *model.Queue, fineStart, nowMs int64) bool {
	at := q.Past.LastChangeMs()
	if at == 0 {
		return false
	}
	long := model.TrendSettles.Milliseconds()
	return (at >= d.fineStart && at < fineStart) || (at >= d.nowMs-long && at < nowMs-long)
}
