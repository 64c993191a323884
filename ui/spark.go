package ui

import (
	"strings"

	"github.com/echomq/emqtop/model"
	"github.com/echomq/emqtop/theme"
)

// Glyph sets of a sparkline: eight heights in blocks, or in ASCII for mono
// and dumb terminals; a gap (a poll with no value) is a space either way.
var (
	blockGlyphs = []rune("▁▂▃▄▅▆▇█")
	asciiGlyphs = []rune("_.-=+*#@")
)

// sparkline draws values scaled to their own row (lowest to highest),
// one glyph a value.
func sparkline(th *theme.Theme, vs []int32) string {
	glyphs := blockGlyphs
	if th.Glyphs {
		glyphs = asciiGlyphs
	}
	lo, hi := int32(-1), int32(-1)
	for _, v := range vs {
		if v == model.Gap {
			continue
		}
		if lo < 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	var b strings.Builder
	for _, v := range vs {
		switch {
		case v == model.Gap:
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(glyphs[0])
		default:
			b.WriteRune(glyphs[int(v-lo)*(len(glyphs)-1)/int(hi-lo)])
		}
	}
	return b.String()
}

// directionMark is a trend's mark: growing, shrinking, steady, unknown.
func directionMark(th *theme.Theme, d model.Direction) string {
	marks := [...]string{" ", "·", "▲", "▼"}
	if th.Glyphs {
		marks = [...]string{" ", "=", "+", "-"}
	}
	switch d {
	case model.Growing:
		return th.Warn.Render(marks[d])
	case model.Shrinking:
		return th.Good.Render(marks[d])
	}
	return th.Dim.Render(marks[d])
}
