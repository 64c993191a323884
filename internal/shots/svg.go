package main

import (
	"fmt"
	"html"
	"strings"
)

const (
	cw       = 8.4 // cell width, px
	ch       = 17  // cell height, px
	defaultF = "#d0d0d0"
	defaultB = "#121212"
)

// svg draws the grid: a rect per run of background, half blocks as rects,
// text runs with a fixed advance so no font can shift the columns.
func svg(grid [][]cell, title string) string {
	h := len(grid)
	w := len(grid[0])
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%d" viewBox="0 0 %.0f %d">`+"\n", float64(w)*cw+16, h*ch+16, float64(w)*cw+16, h*ch+16)
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", defaultB)
	b.WriteString(`<g transform="translate(8,8)" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14">` + "\n")
	colors := func(c cell) (string, string) {
		fg, bg := c.fg, c.bg
		if fg == "" {
			fg = defaultF
		}
		if bg == "" {
			bg = defaultB
		}
		if c.reverse {
			fg, bg = bg, fg
		}
		return fg, bg
	}
	for y, row := range grid {
		for x := 0; x < w; {
			_, bg := colors(row[x])
			e := x
			for e < w {
				_, b2 := colors(row[e])
				if b2 != bg || row[e].r == '▀' {
					break
				}
				e++
			}
			if row[x].r == '▀' {
				fg, bg := colors(row[x])
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%.1f" fill="%s"/><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n",
					float64(x)*cw, y*ch, cw+0.3, float64(ch)/2+0.3, fg, float64(x)*cw, float64(y*ch)+float64(ch)/2, cw+0.3, float64(ch)/2+0.3, bg)
				x++
				continue
			}
			if bg != defaultB {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", float64(x)*cw, y*ch, float64(e-x)*cw+0.3, ch, bg)
			}
			x = e
		}
		for x := 0; x < w; {
			c := row[x]
			if c.r == ' ' || c.r == '▀' {
				x++
				continue
			}
			fg, _ := colors(c)
			e := x
			var text strings.Builder
			for e < w && row[e].r != '▀' {
				f2, _ := colors(row[e])
				if f2 != fg || row[e].bold != c.bold || row[e].faint != c.faint {
					break
				}
				text.WriteRune(row[e].r)
				e++
			}
			t := strings.TrimRight(text.String(), " ")
			n := len([]rune(t))
			attrs := ""
			if c.bold {
				attrs += ` font-weight="bold"`
			}
			if c.faint {
				attrs += ` opacity="0.6"`
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="%s" textLength="%.1f" lengthAdjust="spacingAndGlyphs" xml:space="preserve"%s>%s</text>`+"\n",
				float64(x)*cw, float64(y*ch)+13, fg, float64(n)*cw, attrs, html.EscapeString(t))
			x = e
		}
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}
