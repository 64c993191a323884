package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// legend maps hues to nodes, with each node's slots and queues. When the
// nodes pane is on screen (it says them too) and they do not fit in w, the
// hues alone; without it the counts stay and the marks' key is cut.
func (p *heatPane) legend(w int) string {
	if full := p.legendOf(true); !p.nodesBeside || ansi.StringWidth(full) <= w {
		return full
	}
	return p.legendOf(false)
}

func (p *heatPane) legendOf(counts bool) string {
	th := p.c.th
	s := p.c.snap
	common := commonHost(s)
	var parts []string
	for i, n := range s.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		sw := "■"
		switch {
		case !n.Up():
			sw = th.Bad.Render("✗")
		case th.Glyphs:
			sw = fmt.Sprintf("[%d]", i+1)
		default:
			sw = th.Renderer.NewStyle().Foreground(th.NodeColor(i, 4)).Render("■")
		}
		if counts {
			parts = append(parts, fmt.Sprintf("%s %s %d sl %d q", sw, shortAddr(n.Addr, common), n.SlotCount(), n.Queues))
		} else {
			parts = append(parts, sw+" "+shortAddr(n.Addr, common))
		}
	}
	if up, total := s.NodesUp(); up < total { // what the hatching means, first
		if th.Glyphs {
			parts = append(parts, th.Bad.Render("/ down"))
		} else {
			parts = append(parts, th.Renderer.NewStyle().Foreground(th.Down).Background(th.Empty).Render("▚")+th.Bad.Render(" down"))
		}
	}
	if th.Glyphs {
		parts = append(parts, "! expired", "× uncovered", "◆ selected")
	} else {
		parts = append(parts, th.Renderer.NewStyle().Foreground(th.Expired).Render("■")+" expired",
			th.Renderer.NewStyle().Foreground(th.Uncovered).Render("■")+" uncovered")
	}
	return " " + strings.Join(parts, "  ")
}

// inspector names the slot range under the cursor (or the selected
// queue's), its node and the queues in it with their counts.
func (p *heatPane) inspector(cells []model.HeatCell, cursor, sel int) string {
	th := p.c.th
	i := cursor
	if i < 0 {
		i = sel
	}
	if i < 0 || i >= len(cells) {
		return th.Dim.Render(" tab to the heatmap to inspect slots")
	}
	c := cells[i]
	node := "no node"
	if c.Owner >= 0 {
		node = shortAddr(p.c.snap.Nodes[c.Owner].Addr, commonHost(p.c.snap))
	}
	parts := []string{"slots " + model.Range{Lo: c.Lo, Hi: c.Hi}.String(), node}
	if c.Uncovered > 0 {
		parts = append(parts, th.Warn.Render(fmt.Sprintf("%d uncovered", c.Uncovered)))
	}
	qs := p.c.fold.QueuesIn(c.Lo, c.Hi)
	for k, q := range qs {
		if k == 4 {
			parts = append(parts, fmt.Sprintf("+%d more", len(qs)-4))
			break
		}
		s := fmt.Sprintf("%s %dp %da", textgate.Bounded(q.Name, 24), q.Pending, q.Active)
		if q.Expired > 0 {
			s += th.Warn.Render(fmt.Sprintf(" %d✗", q.Expired))
		}
		parts = append(parts, s)
	}
	if len(qs) == 0 {
		parts = append(parts, th.Dim.Render("no queues"))
	}
	return " " + strings.Join(parts, th.Dim.Render(" · "))
}

// commonHost is the host every node shares, or "".
func commonHost(s *model.Snapshot) string {
	if s == nil {
		return ""
	}
	host := ""
	for i, n := range s.Nodes {
		h := n.Addr[:max(0, strings.LastIndexByte(n.Addr, ':'))]
		if i == 0 {
			host = h
		} else if h != host {
			return ""
		}
	}
	return host
}
