package commands

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/internal/textgate"
)

// table lays out rows in right-aligned columns two cells apart, measured in
// display cells (a CJK rune or an emoji is two), not runes or bytes. Every
// cell passes the gate, so a server's text cannot reach the terminal raw
// through a table.
type table struct {
	rows [][]string
	left map[int]bool // the columns aligned left
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = textgate.Text(c)
	}
	t.rows = append(t.rows, cells)
}

func (t *table) write(w io.Writer) error {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(c))
			if t.left[i] {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
			b.WriteString("  ")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
