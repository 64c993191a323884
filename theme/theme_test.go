package theme

import (
	"io"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/lucasb-eyer/go-colorful"
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

// simulate maps a colour to how a viewer with protanopia or deuteranopia
// sees it (Viénot, Brettel and Mollon 1999, in linear RGB).
func simulate(c colorful.Color, m [3][3]float64) colorful.Color {
	r, g, b := c.LinearRgb()
	return colorful.LinearRgb(
		m[0][0]*r+m[0][1]*g+m[0][2]*b,
		m[1][0]*r+m[1][1]*g+m[1][2]*b,
		m[2][0]*r+m[2][1]*g+m[2][2]*b).Clamped()
}

var visions = map[string][3][3]float64{
	"normal":       {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
	"protanopia":   {{0.11238, 0.88762, 0}, {0.11238, 0.88762, 0}, {0.00401, -0.00401, 1}},
	"deuteranopia": {{0.29275, 0.70725, 0}, {0.29275, 0.70725, 0}, {-0.02234, 0.02234, 1}},
}

// The node hues of the first three nodes (most clusters), the expired
// colour and each node's idle band stay apart under red/green colour
// blindness: an expired cell on any band, and any two bands, differ by a
// CIEDE2000 distance a reader sees at a glance. The palette before this
// one (red marks on a green band) fails it.
func TestPaletteSurvivesColourBlindness(t *testing.T) {
	hex := func(s string) colorful.Color { c, _ := colorful.Hex(s); return c }
	check := func(name string, marks []colorful.Color, bands []colorful.Color) (worst float64) {
		worst = 100
		for vname, m := range visions {
			for i := range marks {
				for j := i + 1; j < len(marks); j++ {
					d := simulate(marks[i], m).DistanceCIEDE2000(simulate(marks[j], m)) * 100
					worst = min(worst, d)
					if d < 10 && name == "okabe-ito" {
						t.Errorf("%s, %s: marks %d and %d differ by %.1f", name, vname, i, j, d)
					}
				}
			}
			for i, b := range bands { // the expired mark (last) on each band
				d := simulate(marks[len(marks)-1], m).DistanceCIEDE2000(simulate(b, m)) * 100
				worst = min(worst, d)
				if d < 10 && name == "okabe-ito" {
					t.Errorf("%s, %s: expired on band %d differs by %.1f", name, vname, i, d)
				}
			}
		}
		return worst
	}
	for _, name := range []string{"dark", "light"} {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.TrueColor)
		th, _ := New(r, name)
		var marks, bands []colorful.Color
		for i := 0; i < 3; i++ {
			marks = append(marks, hex(string(th.Heat[i][4])))
			bands = append(bands, hex(string(th.Heat[i][0])))
		}
		marks = append(marks, hex(string(th.Expired)))
		t.Logf("worst CIEDE2000 distance, %s: Okabe–Ito %.1f", name, check("okabe-ito", marks, bands))
	}
	// the old palette: blue, green, magenta bands and a red mark (xterm 39, 82, 207, 196; bands 17, 22, 53)
	old := check("old", []colorful.Color{hex("#00afff"), hex("#5fff00"), hex("#ff5fff"), hex("#ff0000")},
		[]colorful.Color{hex("#00005f"), hex("#005f00"), hex("#5f005f")})
	t.Logf("worst CIEDE2000 distance: the old palette %.1f", old)
	if old >= 10 {
		t.Errorf("the check cannot tell the old palette (worst %.1f) from a good one", old)
	}
}
