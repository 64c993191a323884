package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/echomq/emqtop/model"
)

type heatKeys struct {
	Left, Right, Up, Down, Top, Bottom, Select key.Binding
}

func newHeatKeys() heatKeys {
	return heatKeys{
		Left:   bind([]string{"left", "h"}, "←/h", "move left"),
		Right:  bind([]string{"right", "l"}, "→/l", "move right"),
		Up:     bind([]string{"up", "k"}, "↑/k", "move up"),
		Down:   bind([]string{"down", "j"}, "↓/j", "move down"),
		Top:    bind([]string{"g", "home"}, "g", "first slot"),
		Bottom: bind([]string{"G", "end"}, "G", "last slot"),
		Select: bind([]string{"enter"}, "enter", "select its busiest queue"),
	}
}

func (k heatKeys) ShortHelp() []key.Binding { return []key.Binding{k.Left, k.Right, k.Select} }
func (k heatKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Left, k.Right, k.Up}, {k.Down, k.Top, k.Bottom}, {k.Select}}
}

// heatPane is the 16384-slot heatmap: a node's hue, load as brightness,
// the marks; its legend, and an inspector line for the slots under the
// cursor.
type heatPane struct {
	c           *common
	keys        heatKeys
	planTo      map[int]int16 // cell → 1 + the node index a previewed plan moves a slot of it to; nil: no plan
	w, h        int
	focused     bool
	nodesBeside bool // the nodes pane is on screen: the legend may be short
	cursor      int  // slot under the cursor, -1 before the first move
	styles      map[[2]lipgloss.Color]styleWrap
	mode        heatMode
	levels      []int // each cell's brightness in the mode, set by View
}

// heatMode is what the heatmap's brightness measures.
type heatMode int

const (
	heatJobs    heatMode = iota // pending + active
	heatQueues                  // how many queues
	heatExpired                 // expired leases
	heatSrvKeys                 // the servers' key count (CLUSTER SLOT-STATS): every key, EchoMQ's or not
	heatCPU                     // the servers' CPU time a second
	heatNet                     // the servers' network bytes a second, in and out
	heatModes
)

var heatModeNames = [...]string{"jobs", "queues", "expired", "keys", "CPU", "network"}

// value is what the mode measures in a cell.
func (m heatMode) value(c *model.HeatCell) int64 {
	switch m {
	case heatQueues:
		return int64(c.Queues)
	case heatExpired:
		return c.Expired
	case heatSrvKeys:
		return c.Keys
	case heatCPU:
		return c.CPU
	case heatNet:
		return c.Net
	}
	return c.Load
}

// measure sets each cell's level in the mode (log scale against the
// highest cell) and returns that highest value.
func (p *heatPane) measure(cells []model.HeatCell) int64 {
	var top int64
	for i := range cells {
		top = max(top, p.mode.value(&cells[i]))
	}
	p.levels = p.levels[:0]
	for i := range cells {
		p.levels = append(p.levels, model.Level(p.mode.value(&cells[i]), top))
	}
	return top
}

// levelFrom is the lowest value drawn at level l (1..4) when top is the
// highest: the inverse of model.Level's scale, for the legend.
func levelFrom(l int, top int64) int64 {
	if l <= 1 {
		return 1
	}
	return max(1, int64(math.Ceil(math.Expm1((float64(l)-1.5)/3*math.Log1p(float64(top))))))
}

func newHeatPane(c *common) *heatPane {
	return &heatPane{c: c, keys: newHeatKeys(), cursor: -1}
}

func (p *heatPane) SetSize(w, h int)          { p.w, p.h = w, h }
func (p *heatPane) SetFocus(f bool)           { p.focused = f }
func (p *heatPane) ShortHelp() []key.Binding  { return p.keys.ShortHelp() }
func (p *heatPane) FullHelp() [][]key.Binding { return p.keys.FullHelp() }
func (p *heatPane) mapW() int                 { return max(1, p.w-2) }
func (p *heatPane) mapRows() int              { return max(1, p.h-4) } // borders, legend, inspector

// cellsPerChar: two cells per character with half blocks in colour, one
// glyph otherwise.
func (p *heatPane) cellsPerChar() int {
	if p.c.th.Glyphs {
		return 1
	}
	return 2
}

func (p *heatPane) cells() int {
	return max(1, min(16384, p.mapW()*p.mapRows()*p.cellsPerChar()))
}

// Update moves the cursor; enter selects the busiest queue under it.
func (p *heatPane) Update(msg tea.Msg) tea.Cmd {
	if mm, ok := msg.(tea.MouseMsg); ok && p.c.fold != nil {
		p.click(mm)
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok || p.c.fold == nil {
		return nil
	}
	n := p.cells()
	if p.cursor < 0 {
		p.cursor = 0
		if q := p.c.sel; q != nil {
			p.cursor = int(q.Slot)
		}
	}
	c := model.CellOf(uint16(p.cursor), n)
	k := p.keys
	switch {
	case key.Matches(km, k.Left):
		c--
	case key.Matches(km, k.Right):
		c++
	case key.Matches(km, k.Up):
		c -= p.mapW()
	case key.Matches(km, k.Down):
		c += p.mapW()
	case key.Matches(km, k.Top):
		c = 0
	case key.Matches(km, k.Bottom):
		c = n - 1
	case key.Matches(km, k.Select):
		lo, hi := model.CellRange(c, n)
		qs := p.c.fold.QueuesIn(lo, hi)
		if len(qs) == 0 {
			return p.c.emit(flashMsg{"no queue in slots " + model.Range{Lo: lo, Hi: hi}.String(), false})
		}
		return p.c.emit(selectQueueMsg{name: qs[0].Name})
	default:
		return nil
	}
	lo, _ := model.CellRange(max(0, min(c, n-1)), n)
	p.cursor = int(lo)
	return nil
}

func (p *heatPane) View() string {
	if p.c.fold == nil {
		return box(focusBorder(p.c.th, p.focused), "Slots 0–16383", nil, p.w, p.h)
	}
	n := p.cells()
	cells := p.c.heatmap(n)
	top := p.measure(cells)
	cursor, sel := -1, -1
	if p.focused && p.cursor >= 0 {
		cursor = model.CellOf(uint16(p.cursor), n)
	}
	if q := p.c.sel; q != nil {
		sel = model.CellOf(q.Slot, n)
	}
	var lines []string
	if p.c.th.Glyphs {
		lines = p.glyphs(cells, cursor, sel)
	} else {
		lines = p.blocks(cells, cursor, sel)
	}
	inspect := p.inspector(cells, cursor, sel)
	if ok, why := p.available(); !ok { // the why in full where it has room: the title would cut it
		inspect = p.c.th.Warn.Render(" " + heatModeNames[p.mode] + ": " + why)
	}
	lines = append(lines, p.legend(p.w-2), inspect)
	title := "Slots 0–16383 · " + p.scale(top)
	if p.focused {
		title += " · ←↑↓→ move · enter select"
	}
	return box(focusBorder(p.c.th, p.focused), title, lines, p.w, p.h)
}

// glyphs: one cell per character; load as shade, marks as letters.
func (p *heatPane) glyphs(cells []model.HeatCell, cursor, sel int) []string {
	shade := []rune{'·', '░', '▒', '▓', '█'}
	w, rows := p.mapW(), p.mapRows()
	lines := make([]string, rows)
	label := int16(-2) // the node whose run of cells is numbered
	for row := 0; row < rows; row++ {
		var b strings.Builder
		for col := 0; col < w; col++ {
			i := row*w + col
			if i >= len(cells) {
				b.WriteByte(' ')
				continue
			}
			c := cells[i]
			ch := shade[p.levels[i]]
			switch {
			case i == cursor:
				ch = '@'
			case i == sel:
				ch = '◆'
			case c.Expired > 0 && p.mode != heatExpired:
				ch = '!'
			case c.Owner < 0:
				ch = '×'
			case p.down(c):
				ch = '/'
			case p.levels[i] == 0 && label != c.Owner:
				ch, label = ownerGlyph(c.Owner), c.Owner // the first idle cell of a node's run: its number
			}
			if i > 0 && cells[i-1].Owner != c.Owner && ch != ownerGlyph(c.Owner) {
				label = -2 // a new run, not yet labelled
			}
			b.WriteRune(ch)
		}
		lines[row] = b.String()
	}
	return lines
}

func (p *heatPane) colorOf(cells []model.HeatCell, i, cursor, sel int) lipgloss.Color {
	th := p.c.th
	if i >= len(cells) {
		return th.Empty
	}
	c := cells[i]
	switch {
	case i == cursor:
		return "226"
	case i == sel:
		return th.Mark
	case c.Expired > 0 && p.mode != heatExpired:
		return th.Expired
	case c.Owner < 0:
		return th.Uncovered
	case p.planTo != nil && p.planTo[i] > 0: // a slot the plan moves: its target's hue, full
		return th.NodeColor(int(p.planTo[i]-1), 4)
	case p.down(c): // hatched: every other cell, so it reads without hue
		if (i%p.mapW()+i/p.mapW())%2 == 0 {
			return th.Down
		}
		return th.Empty
	}
	return th.NodeColor(int(c.Owner), p.levels[i])
}

// ownerGlyph is node i's number in mono, as the legend and the nodes pane
// write it ([1]); past nine, '#'.
func ownerGlyph(i int16) rune {
	if i >= 0 && i < 9 {
		return rune('1' + i)
	}
	return '#'
}

// down reports whether the cell's owner did not answer the last poll: its
// slots are drawn hatched, whatever figures it had before.
func (p *heatPane) down(c model.HeatCell) bool {
	return c.Owner >= 0 && int(c.Owner) < len(p.c.snap.Nodes) && !p.c.snap.Nodes[c.Owner].Up()
}

// blocks: two cells per character with '▀', the upper cell in the
// foreground and the lower in the background. The sequences come from the
// renderer's colour profile (termenv), so each session's terminal governs
// them; one style per colour pair is kept, and a run of equal pairs is one
// styled string.
func (p *heatPane) blocks(cells []model.HeatCell, cursor, sel int) []string {
	prof := p.c.th.Renderer.ColorProfile()
	if p.styles == nil {
		p.styles = map[[2]lipgloss.Color]styleWrap{}
	}
	style := func(up, down lipgloss.Color) styleWrap {
		k := [2]lipgloss.Color{up, down}
		st, ok := p.styles[k]
		if !ok {
			st = wrapOf(prof.String().Foreground(prof.Color(string(up))).Background(prof.Color(string(down))))
			p.styles[k] = st
		}
		return st
	}
	w, rows := p.mapW(), p.mapRows()
	lines := make([]string, rows)
	var b strings.Builder
	for row := 0; row < rows; row++ {
		b.Reset()
		b.Grow(w * 3) // the half blocks alone; the colours' sequences grow it once or twice
		run, last := 0, [2]lipgloss.Color{}
		flush := func() {
			if run > 0 {
				st := style(last[0], last[1])
				b.WriteString(st.pre)
				for range run {
					b.WriteString("▀")
				}
				b.WriteString(st.post)
			}
		}
		for x := 0; x < w; x++ {
			pair := [2]lipgloss.Color{p.colorOf(cells, 2*row*w+x, cursor, sel), p.colorOf(cells, (2*row+1)*w+x, cursor, sel)}
			if pair != last || run == 0 {
				flush()
				run, last = 0, pair
			}
			run++
		}
		flush()
		lines[row] = b.String()
	}
	return lines
}

// scale says the mode and what each brightness means: "jobs per cell
// ■1 ■4 ■20 ■95 · m", the swatches in the first node's hue (glyphs in mono).
func (p *heatPane) scale(top int64) string {
	th := p.c.th
	s := heatModeNames[p.mode] + " per cell"
	if ok, _ := p.available(); !ok {
		return s + ": not available (below) · m mode"
	}
	if top <= 0 {
		return s + " (none) · m mode"
	}
	shade := []string{"·", "░", "▒", "▓", "█"}
	prev := int64(0)
	for l := 1; l <= 4; l++ {
		v := levelFrom(l, top)
		if v <= prev || v > top {
			continue
		}
		prev = v
		sw := shade[l]
		if !th.Glyphs {
			sw = th.Renderer.NewStyle().Foreground(th.NodeColor(0, l)).Render("■")
		}
		s += fmt.Sprintf(" %s%s", sw, p.mode.format(v))
	}
	if prev < top {
		s += "‥" + p.mode.format(top)
	}
	if p.mode == heatCPU && scriptCPUUncounted(p.c.snap) {
		s += " · Valkey 8.0 counts no script CPU per slot: EchoMQ's is in network"
	}
	return s + " · m mode"
}

// click puts the cursor on the cell clicked, from the pane's corner (in
// blocks a character is two cells, one above the other: the upper one).
func (p *heatPane) click(msg tea.MouseMsg) {
	row, col := msg.Y-1, msg.X-1 // inside the border
	if row < 0 || col < 0 || row >= p.mapRows() || col >= p.mapW() {
		return
	}
	n := p.cells()
	i := row*p.mapW() + col
	if !p.c.th.Glyphs {
		i = 2*row*p.mapW() + col
	}
	if i < n {
		lo, _ := model.CellRange(i, n)
		p.cursor = int(lo)
	}
}
