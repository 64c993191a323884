package ui

// The STATUS column of the queue list: what it says of a queue, and what
// a /status: filter matches in it.

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// stalledAfter is how old the oldest pending job may grow, with nothing
// active, before the queue is called stalled (no consumer is taking jobs).
const stalledAfter = time.Minute

// queueStatus says what is wrong with a queue, in words, the most urgent
// first: stuck jobs, stalled, growing, stale, an error.
// tr and ageMs are its trend and its oldest job's age now (Snapshot.Trend,
// OldestAge).
func queueStatus(th *theme.Theme, q *model.Queue, tr model.Trend, ageMs int64) string {
	if q.Stale { // flagged first: whatever else is said is from an earlier poll
		s := th.Bad.Render("node down")
		if rest := liveStatus(th, q, tr, ageMs); rest != "" {
			return s + " · " + rest
		}
		return s + th.Dim.Render(" · figures from its last answer")
	}
	return liveStatus(th, q, tr, ageMs)
}

// idleStatus words an idle queue: empty (or gone) since when.
func idleStatus(th *theme.Theme, since, now time.Time) string {
	if since.IsZero() {
		return th.Dim.Render("idle: empty at start")
	}
	return th.Dim.Render("idle " + ago(now.Sub(since)) + ", since " + since.UTC().Format("15:04:05Z"))
}

func liveStatus(th *theme.Theme, q *model.Queue, tr model.Trend, ageMs int64) string {
	switch liveKind(q, ageMs, func() bool { return tr.Direction == model.Growing }) {
	case "stuck":
		return th.Warn.Render(fmt.Sprintf("stuck: %s expired lease%s", human(q.Expired), plural(q.Expired)))
	case "stalled":
		return th.Warn.Render(fmt.Sprintf("stalled: oldest waits %s, none active", ago(time.Duration(ageMs)*time.Millisecond)))
	case "growing":
		return th.Warn.Render(fmt.Sprintf("growing %+.1f/s net", tr.PendingNet))
	case "error":
		return th.Bad.Render("error: " + textgate.Bounded(q.Err, 120))
	}
	return ""
}

// liveKind is the first word of what liveStatus says, in its order;
// growing is asked only when the kinds before it are not the queue's
// (trendless: "?" when growing is nil and they are not).
func liveKind(q *model.Queue, ageMs int64, growing func() bool) string {
	switch {
	case q.Expired > 0:
		return "stuck"
	case q.Pending > 0 && q.Active == 0 && ageMs >= stalledAfter.Milliseconds():
		return "stalled"
	case growing == nil:
		return "?"
	case growing():
		return "growing"
	case q.Err != "":
		return "error"
	}
	return ""
}

// statusMatch reports whether q's STATUS text starts with want (a
// /status: filter; "down" also names a node down), reading no more than
// it must: the kind of status first, without rendering it, the trend
// derived only when the filter could want growing or error, the whole text
// only when want goes past its first word. (The text of every queue, each
// poll, took seconds at a million queues.)
func statusMatch(th *theme.Theme, s *model.Snapshot, q *model.Queue, want string) bool {
	if q.Stale && want != "" && strings.HasPrefix("down", want) {
		return true
	}
	ageMs := s.OldestAge(q)
	head := "node down"
	if !q.Stale {
		var growing func() bool
		if maybe := func(w string) bool { return strings.HasPrefix(w, want) || strings.HasPrefix(want, w) }; maybe("growing") || maybe("error") {
			growing = func() bool { return s.Trend(q).Direction == model.Growing }
		}
		head = liveKind(q, ageMs, growing)
	}
	switch {
	case head == "" || head == "?":
		return false
	case len(want) <= len(head):
		return strings.HasPrefix(head, want)
	case !strings.HasPrefix(want, head):
		return false
	}
	return strings.HasPrefix(ansi.Strip(queueStatus(th, q, s.Trend(q), ageMs)), want)
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
