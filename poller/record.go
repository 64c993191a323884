package poller

import "github.com/echomq/emqtop/model"

// record puts a poll in the history and copies out what the screens need
// (of the queues that are not the last snapshot's, when it was made by
// difference: a carried queue holds its past already):
// each queue's trend and sparkline, the detailed queues' whole past, the
// totals'. A stale or failed queue is a gap, as are the totals while a
// node does not answer (they would be partial).
func (p *Poller) record(s *model.Snapshot) {
	h, t := p.hist, p.totals
	h.Reserve(s.Queues.Len()) // the first poll of many queues: one allocation a table
	at := s.TakenAt.UnixMilli()
	h.Begin(at)
	t.Begin(at)
	tot := p.last.tot
	at1 := func(i int) {
		q := s.Queues.At(i)
		// a queue carried from the last snapshot is shared with it and
		// never written: it holds its values (or its gap) already
		if q.Stale || q.Err != "" {
			if q.Past.Gapped() {
				return
			}
			h.GapQueue(q)
		} else if v := values(q); !h.Holds(q.Past, v) {
			h.PutQueue(q, v)
		}
	}
	if p.last.touched == nil {
		for i := range s.Queues.Len() {
			at1(i)
		}
	} else { // the snapshot was made by difference: the others are carried
		for _, i := range p.last.touched {
			at1(i)
		}
	}
	if up, all := s.NodesUp(); up == all && all > 0 {
		t.Put("total", tot)
	} else {
		t.Gap("total")
	}
	s.Clock = h.Clock()
	tc := t.Clock()
	past := t.Past("total")
	s.TotalSpark, s.TotalTrend = tc.Spark(past), tc.Trend(past)
}

// values are what the history keeps of a queue's reading.
func values(q *model.Queue) [model.Metrics]int64 {
	return [model.Metrics]int64{q.Pending, q.Active, q.Expired, q.Scheduled, q.OldestScoreMs / 1000}
}
