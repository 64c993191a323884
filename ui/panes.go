package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/echomq/emqtop/internal/safe"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// queuesView is the queue list; only the visible rows are drawn.
func (m *Model) queuesView(r rect) string {
	th := m.th
	in := r.w - 2
	rows := max(1, r.h-3)
	off := m.offset // kept by keepInSight when the selection moves
	common := commonHost(m.snap)
	nameW := max(8, in-2-6-9-9-9-9-8-2)
	showErr := in >= 110
	if showErr {
		nameW = min(40, max(8, nameW-30))
	}
	header := fmt.Sprintf("  %-*s %5s %-8s %8s %8s %8s %7s", nameW, "NAME", "SLOT", "NODE", "PENDING", "ACTIVE", "EXPIRED", "OLDEST")
	if showErr {
		header += "  STATUS"
	}
	lines := []string{th.Header.Render(fit(header, in))}
	for i := off; i < min(len(m.view), off+rows); i++ {
		q := &m.fold.Snap.Queues[m.view[i]]
		mark := "  "
		if i == m.sel {
			mark = "▶ "
		}
		oldest := "–"
		if q.OldestPendingAgeMs >= 0 {
			oldest = ago(time.Duration(q.OldestPendingAgeMs) * time.Millisecond)
		}
		exp := fmt.Sprintf("%8s", human(q.Expired))
		if q.Expired > 0 {
			exp = th.Warn.Render(exp)
		}
		line := mark + queueLabel(q, nameW) + fmt.Sprintf(" %5d %-8s %8s %8s ", q.Slot, fit(shortAddr(q.Node, common), 8),
			human(q.Pending), human(q.Active)) + exp + fmt.Sprintf(" %7s", oldest)
		status := ""
		switch {
		case q.Err != "":
			status = th.Bad.Render("⚠ " + safe.Bounded(q.Err, 120))
		case q.Stale:
			status = th.Dim.Render("stale: its node did not answer")
		}
		if showErr {
			line += "  " + status
		} else if status != "" {
			line = mark[:1] + "!" + line[2:]
		}
		if i == m.sel && m.focus == paneQueues {
			line = th.Selected.Render(fit(line, in))
		} else if q.Stale {
			line = th.Dim.Render(line)
		}
		lines = append(lines, line)
	}
	if len(m.view) == 0 {
		msg := "no queues found yet (discovery scans the primaries a page per poll)"
		if m.filter.Value() != "" {
			msg = "no queue matches the filter (esc clears it)"
		}
		lines = append(lines, th.Dim.Render("  "+msg))
	}
	title := fmt.Sprintf("Queues %d · sort %s %s", len(m.view), m.sortKey, map[bool]string{false: "▾", true: "▴"}[m.reverse])
	if f := m.filter.Value(); f != "" {
		title += " · filter /" + safe.Bounded(f, 30)
	}
	return box(m.border(paneQueues), title, lines, r.w, r.h)
}

// jobLines renders pending or active jobs of q for a pane of w×rows.
func (m *Model) jobLines(q *model.Queue, active bool, w, rows, cur int, focused bool) []string {
	th := m.th
	jobs := q.PendingJobs
	if active {
		jobs = q.ActiveJobs
	}
	if !q.Detail {
		return []string{th.Dim.Render(" reading this queue's jobs…")}
	}
	if len(jobs) == 0 {
		if active {
			return []string{th.Dim.Render(" no active jobs")}
		}
		return []string{th.Dim.Render(" nothing pending")}
	}
	now := time.UnixMilli(q.ServerTimeMs)
	off := max(0, cur-rows+1)
	var lines []string
	idW := 14
	if w >= 60 {
		idW = keyspace.JobIDLen
	}
	for i := off; i < min(len(jobs), off+rows); i++ {
		j := jobs[i]
		id := shortID(j.ID, idW)
		if !j.Valid {
			id = th.Invalid.Render(fit(safe.Bounded(j.ID, 12), 10) + " ⚠id")
		}
		att := fmt.Sprintf("att %d", j.Attempts)
		if !j.AttemptsOK {
			att = th.Invalid.Render("att ?")
			if j.AttemptsRaw != "" && j.Valid {
				att = th.Invalid.Render("att " + safe.Bounded(strings.TrimPrefix(j.AttemptsRaw, "!"), 10))
			}
		}
		var when string
		if active {
			d := time.UnixMilli(j.Score).Sub(now)
			if d <= 0 {
				when = th.Warn.Render("expired " + ago(-d) + " ago")
			} else {
				when = ago(d) + " left"
			}
			lines = append(lines, fmt.Sprintf(" %s  %-8s %s", fit(id, idW+1), att, when))
		} else {
			when = fitLeft(ago(now.Sub(time.UnixMilli(j.Score))), 7)
			lines = append(lines, fmt.Sprintf(" %s %s  %s", fit(id, idW+1), when, att))
		}
		if focused && i == cur {
			lines[len(lines)-1] = th.Selected.Render(fit(lines[len(lines)-1], w))
		}
	}
	total := q.Pending
	if active {
		total = q.Active
	}
	if more := total - int64(len(jobs)); more > 0 && len(lines) < rows {
		lines = append(lines, th.Dim.Render(fmt.Sprintf(" … %s more", human(more))))
	}
	return lines
}

func (m *Model) pendingView(r rect) string {
	q := m.selected()
	if q == nil {
		return box(m.border(panePending), "Pending", nil, r.w, r.h)
	}
	lines := m.jobLines(q, false, r.w-2, r.h-2, m.pendSel, m.focus == panePending)
	return box(m.border(panePending), "Pending · "+safe.Bounded(q.Name, 40), lines, r.w, r.h)
}

func (m *Model) activeView(r rect) string {
	q := m.selected()
	if q == nil {
		return box(m.border(paneActive), "Active", nil, r.w, r.h)
	}
	lines := m.jobLines(q, true, r.w-2, r.h-2, m.actSel, m.focus == paneActive)
	return box(m.border(paneActive), "Active · "+safe.Bounded(q.Name, 40)+", by lease", lines, r.w, r.h)
}

// jobsTabs is the compact layout's lower box: pending or active as a tab,
// and the lease timeline under it.
func (m *Model) jobsTabs(r rect) string {
	q := m.selected()
	active := m.focus != panePending
	p := paneActive
	tabs := "Pending │ [Active]"
	if !active {
		p, tabs = panePending, "[Pending] │ Active"
	}
	if q == nil {
		return box(m.border(p), tabs, nil, r.w, r.h)
	}
	cur := m.actSel
	if !active {
		cur = m.pendSel
	}
	rows := r.h - 2 - 2
	lines := m.jobLines(q, active, r.w-2, rows, cur, m.focus == p)
	for len(lines) < rows {
		lines = append(lines, "")
	}
	lines = append(lines, m.timelineLines(q, r.w-2)...)
	return box(m.border(p), tabs+" · "+safe.Bounded(q.Name, 40), lines, r.w, r.h)
}

// timelineLines are the axis and the bars of the lease-expiry timeline.
func (m *Model) timelineLines(q *model.Queue, w int) []string {
	th := m.th
	edges := m.snap.Edges
	cols, before, after := model.Timeline(q.Hist, edges, max(1, w-8))
	if len(q.Hist) != len(edges)+1 {
		return []string{th.Dim.Render(" lease timeline: reading…"), ""}
	}
	var peak int64
	for _, c := range cols {
		peak = max(peak, c.Count)
	}
	bars := []rune(" ▁▂▃▄▅▆▇█")
	var b strings.Builder
	left := fmt.Sprintf("%4s", "")
	if before > 0 {
		left = th.Warn.Render(fmt.Sprintf("«%3s", human(before)))
	}
	b.WriteString(left)
	zero := -1
	for i, c := range cols {
		ch := bars[0]
		if c.Count > 0 {
			ch = bars[min(len(bars)-1, 1+int(int64(len(bars)-2)*c.Count/peak))]
		}
		s := string(ch)
		if zero < 0 && !c.Expired {
			zero = i
			if c.Count == 0 {
				s = "│"
			}
		}
		if c.Expired && c.Count > 0 {
			s = th.Warn.Render(s)
		}
		b.WriteString(s)
	}
	right := ""
	if after > 0 {
		right = fmt.Sprintf("%3s»", human(after))
	}
	b.WriteString(right)
	win := time.Duration(edges[len(edges)-1]) * time.Millisecond
	axis := fmt.Sprintf("    −%s", ago(win))
	mid := "now"
	pad := max(1, (w-8)/2-len(axis)+4-1)
	axis += strings.Repeat(" ", pad) + mid
	axis += strings.Repeat(" ", max(1, w-4-len(axis)-len(ago(win)))) + "+" + ago(win)
	return []string{th.Dim.Render(axis), b.String()}
}

func (m *Model) timelineView(r rect) string {
	q := m.selected()
	title := "Lease expiry"
	if q == nil {
		return box(m.th.Border, title, nil, r.w, r.h)
	}
	title += " · " + safe.Bounded(q.Name, 40) + " · < narrow  > widen"
	return box(m.th.Border, title, m.timelineLines(q, r.w-2), r.w, r.h)
}
