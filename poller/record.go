package poller

import "github.com/echomq/emqtop/model"

// record puts a poll in the history and copies out what the screens need:
// each queue's trend and sparkline, the detailed queues' whole past, the
// totals'. A stale or failed queue is a gap, as are the totals while a
// node does not answer (they would be partial).
func (p *Poller) record(s *model.Snapshot) {
	h, t := p.hist, p.totals
	h.Reserve(len(s.Queues)) // the first poll of many queues: one allocation a table
	at := s.TakenAt.UnixMilli()
	h.Begin(at)
	t.Begin(at)
	var tot [model.Metrics]int64
	for i := range s.Queues {
		q := &s.Queues[i]
		tot[model.MPending] += q.Pending
		tot[model.MActive] += q.Active
		tot[model.MExpired] += q.Expired
		tot[model.MScheduled] += q.Scheduled
		if q.Stale || q.Err != "" {
			h.Gap(q.Name)
			continue
		}
		h.Put(q.Name, [model.Metrics]int64{q.Pending, q.Active, q.Expired, q.Scheduled, q.OldestScoreMs / 1000})
	}
	if up, all := s.NodesUp(); up == all && all > 0 {
		t.Put("total", tot)
	} else {
		t.Gap("total")
	}
	for i := range s.Queues {
		q := &s.Queues[i]
		q.Trend = h.Trend(q.Name)
		q.Spark = h.Buckets(q.Name, model.MPending, model.SparkBuckets)
		if q.Detail {
			if past, ok := h.Series(q.Name); ok {
				q.Past = &past
			}
		}
	}
	s.TotalSpark = t.Buckets("total", model.MPending, model.SparkBuckets)
	s.TotalTrend = t.Trend("total")
}
