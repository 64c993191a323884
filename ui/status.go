package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// statusPart is a piece of the status bar; a lower prio survives longer.
type statusPart struct {
	s    string
	prio int
}

// statusBar is one line; its least important parts go first when narrow.
// With inNodes what it is connected to and the facts of the connection are
// left to the nodes pane, whose title and last row they are.
func (m *Model) statusBar(inNodes bool) string {
	parts := m.statusParts(inNodes)
	sep := m.c.th.Dim.Render(" · ")
	for len(parts) > 1 {
		strs := make([]string, len(parts))
		for i, p := range parts {
			strs[i] = p.s
		}
		line := " " + strings.Join(strs, sep)
		if ansi.StringWidth(line) <= m.width {
			return fit(line, m.width)
		}
		worst := 0
		for i, p := range parts {
			if p.prio >= parts[worst].prio {
				worst = i
			}
		}
		parts = append(parts[:worst], parts[worst+1:]...)
	}
	return fit(" "+parts[0].s, m.width)
}

func (m *Model) statusParts(inNodes bool) []statusPart {
	th := m.c.th
	var parts []statusPart
	add := func(s string, prio int) { parts = append(parts, statusPart{s, prio}) }
	add(th.Title.Render("emqtop"), 0)
	if m.opt.Demo != "" { // never to be taken for production
		add(th.Warn.Render(textgate.Text(m.opt.Demo)), 0)
	}
	s := m.c.snap
	if s == nil {
		add(textgate.Text(m.opt.Target), 1)
	} else {
		if !inNodes {
			add(m.targetText(), 3)
		}
		up, total := s.NodesUp()
		ns := fmt.Sprintf("%d/%d primaries", up, total)
		if up < total {
			ns = th.Bad.Render(ns)
		}
		add(ns, 1)
		qs := human(int64(s.Queues.Len())) + " queue" + plural(int64(s.Queues.Len()))
		switch idle, hidden := m.c.mem.counts(); {
		case hidden > 0:
			qs += fmt.Sprintf(" (+%s idle hidden)", human(int64(hidden)))
		case idle > 0:
			qs += fmt.Sprintf(" (%s idle)", human(int64(idle)))
		}
		add(qs, 1)
		if d := discovering(s); d != "" {
			add(th.Warn.Render(d), 1)
		}
		p, a, e := m.c.fold.Totals()
		add(fmt.Sprintf("%s pending", human(p)), 2)
		add(fmt.Sprintf("%s active", human(a)), 2)
		exp := fmt.Sprintf("%s expired", human(e))
		if e > 0 {
			exp = th.Warn.Render(exp)
		}
		add(exp, 0) // what the operator came for: it goes last
	}
	add(m.mode(), 0)
	if s != nil {
		as := ago(m.opt.Now().Sub(s.TakenAt)) + " old"
		if m.opt.Now().Sub(s.TakenAt) > 3*m.pollEvery()+2*time.Second {
			as = th.Warn.Render(as)
		}
		add(as, 0) // how old the figures are is never dropped: a stale screen must say so
		if e := m.pollEvery(); e > m.interval {
			// the self-load budget slowed the polls: say so where it is seen
			add(th.Warn.Render(fmt.Sprintf("budget: polling every %s, not %s", every(e), every(m.interval))), 1)
		}
		if !inNodes {
			for i, f := range m.facts() {
				add(f, 4+i)
			}
		}
	}
	if m.pollErr != nil {
		add(th.Bad.Render("poll failed: "+textgate.Bounded(m.pollErr.Error(), 80)), 0)
	}
	return parts
}

// mode is what the figures on screen are: LIVE, or DEGRADED when a
// primary did not answer (its figures are partial or old), PAUSED, and
// READ-ONLY beside them.
func (m *Model) mode() string {
	th := m.c.th
	var words []string
	if m.opt.ReadOnly || m.noPerm {
		words = append(words, th.ReadOnly.Render("READ-ONLY"))
	}
	if m.paused {
		words = append(words, th.Paused.Render("PAUSED"))
	}
	if d := m.degraded(); d != "" {
		words = append(words, d)
	} else if !m.paused {
		words = append(words, th.Live.Render("LIVE"))
	}
	return strings.Join(words, " ")
}

// degraded words the primaries that did not answer the last poll, "" when
// every one did.
func (m *Model) degraded() string {
	if m.c.snap == nil {
		return ""
	}
	up, total := m.c.snap.NodesUp()
	if up == total {
		return ""
	}
	return m.c.th.Bad.Render(fmt.Sprintf("DEGRADED %d/%d down", total-up, total))
}

// targetText names what the dashboard is connected to.
func (m *Model) targetText() string {
	kind := "standalone"
	if m.c.snap.Cluster {
		kind = "cluster"
	}
	return kind + " " + textgate.Bounded(m.opt.Target, 40)
}

// facts are the connection's particulars, most wanted first: the
// dashboard's own load (and under serve how many sessions share it), the
// interval, the server's clock, the protocol version.
func (m *Model) facts() []string {
	fence := m.c.snap.Version
	if fence == "" {
		fence = "unset"
	}
	self := fmt.Sprintf("self %s scripts/s", human(int64(m.scriptsPerSec())))
	if n := m.c.snap.Sessions; n > 0 { // emqtop serve: one poller's load, shared
		self = fmt.Sprintf("%d session%s on one poller: %s", n, plural(int64(n)), self)
	}
	return []string{ // the most wanted first: a narrow line keeps them
		self,
		m.everyFact(),
		"server " + time.UnixMilli(m.c.snap.ServerTimeMs).UTC().Format("15:04:05Z"),
		"protocol " + textgate.Bounded(fence, 20),
	}
}

// everyFact is the interval, and when the self-load budget stretched it,
// that it did and from what.
func (m *Model) everyFact() string {
	if e := m.pollEvery(); e > m.interval {
		return fmt.Sprintf("every %s (budget %s a node; asked %s)", every(e), pct(m.c.snap.Poll.Budget), every(m.interval))
	}
	return "every " + every(m.interval)
}

// pct words a share of a core: 2%, 0.4%, 0.05%.
func pct(f float64) string {
	switch v := f * 100; {
	case v >= 10:
		return fmt.Sprintf("%.0f%%", v)
	case v >= 1:
		return fmt.Sprintf("%.1f%%", v)
	default:
		return fmt.Sprintf("%.2f%%", v)
	}
}

// scriptsPerSec is the dashboard's own load on the cluster.
func (m *Model) scriptsPerSec() float64 {
	if m.c.snap == nil || m.prevSnap == nil {
		return 0
	}
	d := m.c.snap.TakenAt.Sub(m.prevSnap.TakenAt).Seconds()
	if d <= 0 {
		return 0
	}
	return float64(m.c.snap.Poll.Scripts) / d
}

// discovering says how far discovery has gone while a primary has not been
// walked whole (its queues are not all listed yet): the least walked one,
// "discovering: 41% of :7001's keys walked"; "" once every one has.
func discovering(s *model.Snapshot) string {
	var least *model.NodeStatus
	for i := range s.Nodes {
		n := &s.Nodes[i]
		if n.Role != model.RolePrimary || !n.Discovering || !n.Up() {
			continue
		}
		if least == nil || n.Walked < least.Walked {
			least = n
		}
	}
	if least == nil {
		return ""
	}
	return fmt.Sprintf("discovering: %d%% of %s's keys walked", int(least.Walked*100), shortAddr(least.Addr, commonHost(s)))
}
