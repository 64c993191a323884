// Package theme holds the palettes and every lipgloss style of emqtop, all
// built from one *lipgloss.Renderer: the renderer knows the terminal's
// colour profile and background, which is what makes the same program look
// right locally and when served over SSH.
package theme

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
	"github.com/lucasb-eyer/go-colorful"
	"github.com/muesli/termenv"
)

// Names are the themes --theme accepts.
var Names = []string{"dark", "light", "mono"}

// Theme is every style the UI uses.
type Theme struct {
	Name     string
	Renderer *lipgloss.Renderer
	// Glyphs is true when colour cannot carry meaning (mono, NO_COLOR, an
	// ASCII terminal): the heatmap then draws load and marks as characters.
	Glyphs bool

	Base, Dim, Bold, Title, Border, BorderFocus lipgloss.Style
	Status, StatusKey, Live, Paused, ReadOnly   lipgloss.Style
	Warn, Bad, Good, Invalid, Selected, Cursor  lipgloss.Style
	Header, HelpKey, HelpDesc                   lipgloss.Style
	Dialog, Danger                              lipgloss.Style

	// Heat[node][level] colours a heatmap cell of a node at load 0..4.
	Heat      [][5]lipgloss.Color
	Uncovered lipgloss.Color
	Down      lipgloss.Color // the hatching over a node that does not answer
	Expired   lipgloss.Color
	Mark      lipgloss.Color // the cursor and the selected queue
	Empty     lipgloss.Color
}

// Hues are the nodes' colours: the Okabe–Ito palette (Okabe and Ito,
// "Color Universal Design", 2002), made to stay apart under the common
// colour-vision deficiencies. Orange is kept out of it: it is the colour of
// expired leases and warnings, everywhere, so no node can be taken for a
// stuck one. The order puts the most distinct hues first (most clusters
// have three primaries).
var Hues = []string{
	"#0072B2", // blue
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#56B4E9", // sky blue
	"#F0E442", // yellow
	"#D55E00", // vermillion
}

// ExpiredHue is Okabe–Ito orange: expired leases, on the heatmap and in text.
const ExpiredHue = "#E69F00"

// heatSteps are how much of a hue each load level shows over the
// background: a faint tint for a node's idle slots (its band reads as its
// own without hiding the load), full strength for the busiest.
var heatSteps = [5]float64{0.22, 0.40, 0.58, 0.78, 1}

// ramp blends each hue over bg in heatSteps.
func ramp(bg string) [][5]lipgloss.Color {
	base, _ := colorful.Hex(bg)
	out := make([][5]lipgloss.Color, len(Hues))
	for i, h := range Hues {
		c, _ := colorful.Hex(h)
		for l, k := range heatSteps {
			out[i][l] = lipgloss.Color(base.BlendRgb(c, k).Clamped().Hex())
		}
	}
	return out
}

// New builds a theme on r. An unknown name is an error that lists the names.
func New(r *lipgloss.Renderer, name string) (*Theme, error) {
	t := &Theme{Name: name, Renderer: r}
	s := r.NewStyle
	switch name {
	case "dark", "light":
		dark := name == "dark"
		fg, dim, accent, border := lipgloss.Color("252"), lipgloss.Color("244"), lipgloss.Color("75"), lipgloss.Color("240")
		t.Heat, t.Uncovered, t.Expired, t.Mark, t.Empty, t.Down = ramp("#1c1c1c"), "236", ExpiredHue, "231", "235", "250"
		if !dark {
			fg, dim, accent, border = "235", "243", "25", "250"
			t.Heat, t.Uncovered, t.Expired, t.Mark, t.Empty, t.Down = ramp("#f4f4f4"), "252", "#B36B00", "16", "255", "240"
		}
		t.Base = s().Foreground(fg)
		t.Dim = s().Foreground(dim)
		t.Bold = s().Bold(true)
		t.Title = s().Bold(true).Foreground(accent)
		t.Border = s().Border(lipgloss.RoundedBorder()).BorderForeground(border)
		t.BorderFocus = s().Border(lipgloss.RoundedBorder()).BorderForeground(accent)
		t.Status = s().Foreground(fg)
		t.StatusKey = s().Bold(true).Foreground(accent)
		t.Live = s().Bold(true).Foreground(lipgloss.Color("40"))
		t.Paused = s().Bold(true).Foreground(lipgloss.Color("214"))
		t.ReadOnly = s().Bold(true).Foreground(lipgloss.Color("75"))
		t.Warn = s().Foreground(t.Expired) // one colour for stuck and for warnings
		t.Bad = s().Bold(true).Foreground(lipgloss.Color("196"))
		t.Good = s().Foreground(lipgloss.Color("40"))
		t.Invalid = s().Foreground(lipgloss.Color("201")).Italic(true)
		t.Selected = s().Bold(true).Reverse(true)
		t.Cursor = s().Bold(true).Foreground(accent)
		t.Header = s().Bold(true).Foreground(dim)
		t.HelpKey = s().Foreground(accent)
		t.HelpDesc = s().Foreground(dim)
		t.Dialog = s().Border(lipgloss.DoubleBorder()).BorderForeground(accent).Padding(0, 1)
		t.Danger = s().Border(lipgloss.DoubleBorder()).BorderForeground(lipgloss.Color("196")).Padding(0, 1)
		t.Glyphs = r.ColorProfile() == termenv.Ascii
	case "mono":
		t.Base, t.Dim, t.Bold = s(), s().Faint(true), s().Bold(true)
		t.Title = s().Bold(true)
		t.Border = s().Border(lipgloss.NormalBorder())
		t.BorderFocus = s().Border(lipgloss.ThickBorder())
		t.Status, t.StatusKey = s(), s().Bold(true)
		t.Live, t.Paused, t.ReadOnly = s().Bold(true), s().Bold(true).Underline(true), s().Bold(true)
		t.Warn, t.Bad, t.Good = s().Bold(true), s().Bold(true).Underline(true), s()
		t.Invalid = s().Italic(true)
		t.Selected, t.Cursor = s().Reverse(true), s().Bold(true)
		t.Header, t.HelpKey, t.HelpDesc = s().Bold(true), s().Bold(true), s()
		t.Dialog = s().Border(lipgloss.DoubleBorder()).Padding(0, 1)
		t.Danger = s().Border(lipgloss.DoubleBorder()).Padding(0, 1)
		t.Glyphs = true
	default:
		return nil, fmt.Errorf("unknown theme %q: want one of %v", name, Names)
	}
	return t, nil
}

// NodeColor is the colour of node i at load level l.
func (t *Theme) NodeColor(i, l int) lipgloss.Color {
	if i < 0 || len(t.Heat) == 0 {
		return t.Uncovered
	}
	return t.Heat[i%len(t.Heat)][max(0, min(4, l))]
}
