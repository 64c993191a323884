package ui

import (
	"testing"

	"github.com/muesli/termenv"
)

// A style's wrap, made once, around any text is what Styled gives it, in
// every colour profile (the heatmap writes its runs of cells that way).
func TestStyleWrapIsStyled(t *testing.T) {
	for _, prof := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		for _, st := range []termenv.Style{
			prof.String().Foreground(prof.Color("#ff8800")).Background(prof.Color("#002244")),
			prof.String().Foreground(prof.Color("9")),
			prof.String(),
		} {
			w := wrapOf(st)
			for _, text := range []string{"▀", "▀▀▀▀", "x"} {
				if got, want := w.pre+text+w.post, st.Styled(text); got != want {
					t.Errorf("profile %v: wrapped %q, Styled %q", prof, got, want)
				}
			}
		}
	}
}
