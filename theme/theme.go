// Package theme holds the palettes and every lipgloss style of emqtop, all
// built from one *lipgloss.Renderer: the renderer knows the terminal's
// colour profile and background, which is what makes the same program look
// right locally and when served over SSH.
package theme

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"
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

// Hues are the nodes' colours, after the Okabe–Ito palette (Okabe and Ito,
// "Color Universal Design", 2002), made to stay apart under the common
// colour-vision deficiencies: blue, bluish green, reddish purple, sky blue,
// yellow, vermillion, the most distinct first (most clusters have three
// primaries). Orange is kept out: it is the colour of expired leases and
// warnings, everywhere, so no node can be taken for a stuck one.
//
// Each hue is a ramp of five xterm-256 cube colours, from a node's idle
// slots to its busiest: a 256-colour terminal (tmux, most SSH sessions)
// shows them exactly, where a blend of a hue over the background would be
// rounded to a grey, and a node's band would lose its hue.
var Hues = [][5]int{
	{17, 18, 19, 26, 33},     // blue
	{22, 29, 35, 42, 49},     // bluish green
	{53, 89, 133, 170, 212},  // reddish purple
	{24, 31, 38, 81, 123},    // sky blue
	{58, 100, 142, 185, 228}, // yellow
	{52, 88, 124, 160, 202},  // vermillion
}

// LightHues are the same hues for a light background: pale for idle
// slots, deep for the busiest.
var LightHues = [][5]int{
	{189, 153, 111, 69, 18},   // blue
	{194, 158, 121, 79, 36},   // bluish green
	{225, 219, 182, 139, 96},  // reddish purple
	{195, 159, 117, 74, 31},   // sky blue
	{230, 229, 186, 142, 100}, // yellow
	{224, 217, 210, 167, 124}, // vermillion
}

// ExpiredHue is Okabe–Ito orange: expired leases, on the heatmap and in text.
const ExpiredHue = "#E69F00"

// Hex is xterm-256 colour n (16..231, the cube) as #rrggbb.
func Hex(n int) string {
	steps := [6]int{0, 95, 135, 175, 215, 255}
	n -= 16
	return fmt.Sprintf("#%02x%02x%02x", steps[n/36], steps[n/6%6], steps[n%6])
}

// ramps are the hues as colours, for a dark or a light background.
func ramps(light bool) [][5]lipgloss.Color {
	hues := Hues
	if light {
		hues = LightHues
	}
	out := make([][5]lipgloss.Color, len(hues))
	for i, h := range hues {
		for l, n := range h {
			out[i][l] = lipgloss.Color(Hex(n))
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
		t.Heat, t.Uncovered, t.Expired, t.Mark, t.Empty, t.Down = ramps(false), "236", ExpiredHue, "231", "235", "250"
		if !dark {
			fg, dim, accent, border = "235", "243", "25", "250"
			t.Heat, t.Uncovered, t.Expired, t.Mark, t.Empty, t.Down = ramps(true), "252", "#B36B00", "16", "255", "240"
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
