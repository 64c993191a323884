package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cell is one character of the captured screen.
type cell struct {
	r                    rune
	fg, bg               string // "#rrggbb"; "" is the default
	bold, faint, reverse bool
}

// xterm's 16 basic colours as a dark terminal shows them.
var basic = []string{"#1c1c1c", "#d75f5f", "#5faf5f", "#d7af5f", "#5f87d7", "#af5fd7", "#5fafaf", "#d0d0d0",
	"#767676", "#ff8787", "#87d787", "#ffd787", "#87afff", "#d787ff", "#87d7d7", "#ffffff"}

func xterm256(n int) string {
	switch {
	case n < 16:
		return basic[n]
	case n < 232:
		n -= 16
		lv := []int{0, 95, 135, 175, 215, 255}
		return fmt.Sprintf("#%02x%02x%02x", lv[n/36], lv[n/6%6], lv[n%6])
	}
	g := 8 + (n-232)*10
	return fmt.Sprintf("#%02x%02x%02x", g, g, g)
}

// parse turns tmux capture-pane -e output into a grid of w×h cells.
func parse(s string, w, h int) [][]cell {
	grid := make([][]cell, h)
	for i := range grid {
		grid[i] = make([]cell, w)
		for j := range grid[i] {
			grid[i][j].r = ' '
		}
	}
	var cur cell
	for y, line := range strings.Split(s, "\n") {
		if y >= h {
			break
		}
		x := 0
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					sgr(&cur, line[i+2:j])
				}
				i = j + 1
				continue
			}
			r, n := utf8.DecodeRuneInString(line[i:])
			i += n
			if x < w {
				c := cur
				c.r = r
				grid[y][x] = c
			}
			x++
		}
	}
	return grid
}

func sgr(c *cell, params string) {
	if params == "" {
		*c = cell{}
		return
	}
	p := strings.Split(params, ";")
	for i := 0; i < len(p); i++ {
		n, _ := strconv.Atoi(p[i])
		switch {
		case n == 0:
			*c = cell{}
		case n == 1:
			c.bold = true
		case n == 2:
			c.faint = true
		case n == 7:
			c.reverse = true
		case n == 22:
			c.bold, c.faint = false, false
		case n == 27:
			c.reverse = false
		case n >= 30 && n <= 37:
			c.fg = basic[n-30]
		case n >= 90 && n <= 97:
			c.fg = basic[n-90+8]
		case n >= 40 && n <= 47:
			c.bg = basic[n-40]
		case n >= 100 && n <= 107:
			c.bg = basic[n-100+8]
		case n == 39:
			c.fg = ""
		case n == 49:
			c.bg = ""
		case (n == 38 || n == 48) && i+2 < len(p) && p[i+1] == "5":
			v, _ := strconv.Atoi(p[i+2])
			if n == 38 {
				c.fg = xterm256(v)
			} else {
				c.bg = xterm256(v)
			}
			i += 2
		case (n == 38 || n == 48) && i+4 < len(p) && p[i+1] == "2":
			r, _ := strconv.Atoi(p[i+2])
			g, _ := strconv.Atoi(p[i+3])
			b, _ := strconv.Atoi(p[i+4])
			col := fmt.Sprintf("#%02x%02x%02x", r, g, b)
			if n == 38 {
				c.fg = col
			} else {
				c.bg = col
			}
			i += 4
		}
	}
}
