package poller

import (
	"testing"

	"github.com/echomq/emqtop/model"
)

// A counts-only row is read whole or not at all: six fields, the counts
// whole numbers not below zero, '-' for no oldest score and no next lease;
// anything else (short, long, a word, a negative count, a terminal escape)
// leaves the queue as it was and says so, and an oldest score that is no
// time gives no age.
func TestCountsRow(t *testing.T) {
	const now = 1_000_000
	good := map[string]model.Queue{
		"3 1 0 995000 1 1002000": {Pending: 3, Active: 1, Expired: 1, OldestScoreMs: 995000, OldestPendingAgeMs: 5000, NextDeadlineMs: 1002000},
		"0 0 7 - 0 -":            {Scheduled: 7, OldestPendingAgeMs: -1},
		"2 0 0 inf 0 -":          {Pending: 2, OldestPendingAgeMs: -1},
	}
	for row, want := range good {
		q := model.Queue{OldestPendingAgeMs: -1}
		if !countsRow(&q, now, row) {
			t.Errorf("%q: not read", row)
			continue
		}
		if q.Pending != want.Pending || q.Active != want.Active || q.Scheduled != want.Scheduled || q.Expired != want.Expired ||
			q.OldestScoreMs != want.OldestScoreMs || q.OldestPendingAgeMs != want.OldestPendingAgeMs || q.NextDeadlineMs != want.NextDeadlineMs {
			t.Errorf("%q: read as %+v", row, q)
		}
	}
	for _, row := range []string{"", "1 2 3", "1 2 3 - 0 - 9", "1 x 3 - 0 -", "-1 0 0 - 0 -", "1 2 3 - \x1b[31m -", "1  2 3 - 0 -"} {
		q := model.Queue{Pending: 42}
		if countsRow(&q, now, row) || q.Pending != 42 {
			t.Errorf("%q: read (pending %d), want refused and the queue untouched", row, q.Pending)
		}
	}
}
