package ui

import (
	"fmt"
	"github.com/echomq/emqtop/model"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/theme"
)

// borderStyle is a pane's box style.
type borderStyle = lipgloss.Style

// focusBorder is the box of a pane with or without the focus.
func focusBorder(th *theme.Theme, focused bool) lipgloss.Style {
	if focused {
		return th.BorderFocus
	}
	return th.Border
}

// fit cuts s to w cells (an ellipsis marks the cut) and pads it to w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s) // once: a line's width is a walk of its graphemes
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	if pad := w - n; pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// fitLeft right-aligns s in w cells.
func fitLeft(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return fit(s, w)
}

// box draws a rounded box of w×h cells with title set into the top border;
// lines are cut or padded to the inside.
func box(st lipgloss.Style, title string, lines []string, w, h int) string {
	if w < 4 || h < 2 {
		return ""
	}
	in := w - 2
	bc := st.GetBorderTopForeground()
	border := st.GetBorderStyle()
	edge := st.UnsetBorderStyle().UnsetPadding().UnsetBorderForeground().Foreground(bc)
	top := border.Top
	t := ""
	if title != "" {
		t = " " + ansi.Truncate(title, max(0, in-4), "…") + " "
	}
	fill := in - 1 - ansi.StringWidth(t)
	head := edge.Render(border.TopLeft+top) + t + edge.Render(strings.Repeat(top, max(0, fill))+border.TopRight)
	side := edge.Render(border.Left)
	rside := edge.Render(border.Right)
	// sized once (a frame's boxes grew their builders by doubling: a fifth
	// of what a frame allocated)
	size := 2 * len(head)
	for _, l := range lines[:min(len(lines), h-2)] {
		size += len(l)
	}
	size += (h - 2) * (len(side) + len(rside) + in + 1)
	var b strings.Builder
	b.Grow(size)
	b.WriteString(head)
	for i := 0; i < h-2; i++ {
		b.WriteByte('\n')
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		b.WriteString(side)
		b.WriteString(fit(l, in))
		b.WriteString(rside)
	}
	b.WriteByte('\n')
	b.WriteString(edge.Render(border.BottomLeft + strings.Repeat(border.Bottom, in) + border.BottomRight))
	return b.String()
}

// human words a count: 950, 9.8k, 12k, 3.1M.
func human(n int64) string {
	switch a := abs(n); {
	case a < 1000:
		return fmt.Sprint(n)
	case a < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case a < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case a < 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// ago words an age, every a setting: model.Ago and model.Every, the one
// way durations are written (1m, 9m05s, 2.5s).
func ago(d time.Duration) string { return model.Ago(d) }

func every(d time.Duration) string { return model.Every(d) }

// shortAddr is a node's address for the screen, through the gate (a node
// announces whatever address its operator set), without the host that
// every node shares.
func shortAddr(addr, common string) string {
	if common != "" && strings.HasPrefix(addr, common+":") {
		addr = addr[len(common):]
	}
	return textgate.Text(addr)
}

// shortID fits a job id in w cells. A ULID starts with its time, so ids of
// one burst share their start: the cut keeps the brand and the random end.
func shortID(id string, w int) string {
	id = textgate.Text(id) // an id that failed the gate is shown, escaped
	if len(id) <= w {
		return id
	}
	if w < 8 {
		return id[:max(1, w-1)] + "…"
	}
	return id[:3] + "…" + id[len(id)-(w-4):]
}

// position says which rows of n a list shows: "rows 12–18 of 36".
func position(from, to, n int) string {
	return fmt.Sprintf("rows %s–%s of %s", commas(int64(from+1)), commas(int64(to)), commas(int64(n)))
}

// styleWrap is what a termenv style puts before and after the text it
// styles, made once: Styled joins the style's parts and formats them anew
// at each call (a run of the heatmap's cells each, every frame).
type styleWrap struct{ pre, post string }

func wrapOf(st termenv.Style) styleWrap {
	pre, post, _ := strings.Cut(st.Styled("\x00"), "\x00")
	return styleWrap{pre, post}
}
