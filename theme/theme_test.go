package theme

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestThemes(t *testing.T) {
	for _, name := range Names {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.ANSI256)
		th, err := New(r, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if th.Renderer != r {
			t.Errorf("%s: styles not from the given renderer", name)
		}
		if got := th.Warn.Render("x"); name != "mono" && !strings.Contains(got, "\x1b[") {
			t.Errorf("%s: the warning style has no colour at 256 colours: %q", name, got)
		}
		if th.Glyphs != (name == "mono") {
			t.Errorf("%s: glyphs %v", name, th.Glyphs)
		}
	}
	if _, err := New(lipgloss.NewRenderer(io.Discard), "neon"); err == nil || !strings.Contains(err.Error(), "dark") {
		t.Errorf("unknown theme: %v", err)
	}
	// on an ASCII terminal colour cannot carry meaning: glyphs, and no
	// escape sequence in any style
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	th, _ := New(r, "dark")
	if !th.Glyphs || strings.Contains(th.Bad.Render("x")+th.Warn.Render("x"), "\x1b[3") {
		t.Error("the ASCII profile still colours")
	}
	if c := th.NodeColor(-1, 3); c != th.Uncovered {
		t.Errorf("NodeColor(-1) = %v", c)
	}
	if th.NodeColor(7, 9) != th.Heat[7%len(th.Heat)][4] {
		t.Error("NodeColor does not wrap nodes and clamp levels")
	}
}
