package textgate

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile are inputs a terminal would act on if printed raw.
var hostile = []string{
	"\x1b[2J\x1b[H",                            // clear screen, cursor home
	"\x1b]0;pwned\x07",                         // window title
	"\x1b]52;c;cm0gLXJmIH4=\x07",               // OSC 52 clipboard write
	"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", // hyperlink
	"\x9b31m",    // 8-bit CSI as a raw byte (invalid UTF-8)
	"\u009b31m",  // 8-bit CSI as a UTF-8 rune
	"\u202eevil", // right-to-left override
	"a\x00b\x7fc\rd",
	"\xff\xfe",
}

func TestTextDisarms(t *testing.T) {
	for _, in := range hostile {
		out := Text(in)
		if !utf8.ValidString(out) {
			t.Errorf("Text(%q) = %q is not valid UTF-8", in, out)
		}
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
				t.Errorf("Text(%q) = %q still holds %U", in, out, r)
			}
		}
	}
	if got := Text("\x1b[31mred"); got != `\x1b[31mred` {
		t.Errorf("Text = %q", got)
	}
	if got := Text("ナ日本 é"); got != "ナ日本 é" {
		t.Errorf("printable text changed: %q", got)
	}
	if got := Lines("a\nb\x1b"); got != "a\nb\\x1b" {
		t.Errorf("Lines = %q", got)
	}
}

func TestBounded(t *testing.T) {
	big := strings.Repeat("ナ", 1<<20)
	got := Bounded(big, 100)
	if len(got) > 140 || !strings.Contains(got, "3.0 MiB in all") || !utf8.ValidString(got) {
		t.Errorf("Bounded = %q", got)
	}
}

func TestJSON(t *testing.T) {
	for _, in := range hostile {
		b, _ := json.Marshal(map[string]string{"k": in})
		out := JSON(b)
		for _, r := range string(out) {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e {
				t.Errorf("JSON(%q) = %q still holds %U", in, out, r)
			}
		}
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Errorf("JSON(%q) no longer parses: %v", in, err)
		}
		var orig map[string]string
		_ = json.Unmarshal(b, &orig)
		if back["k"] != orig["k"] {
			t.Errorf("JSON changed the value of %q: %q vs %q", in, back["k"], orig["k"])
		}
	}
}

// One rune of every class the gate escapes, astral format runes included.
var escapedClasses = map[string]rune{
	"C0":                  0x1b,
	"DEL":                 0x7f,
	"C1 CSI":              0x9b,
	"C1 OSC":              0x9d,
	"bidi override":       0x202e,
	"bidi isolate":        0x2066,
	"zero-width space":    0x200b,
	"zero-width joiner":   0x200d,
	"byte-order mark":     0xfeff,
	"astral tag":          0xe0041,
	"astral cancel tag":   0xe007f,
	"astral format":       0x1d173,
	"astral unassigned":   0xeffff,
	"private use (plane)": 0xf0000,
}

// Every escaped class comes back from encoding/json as the same rune: the
// queue "tag\U000E0041x" stays that name, not "tag\uE004" + "1x".
func TestEscapesRoundTripThroughJSON(t *testing.T) {
	for class, r := range escapedClasses {
		name := "tag" + string(r) + "x"
		b, err := json.Marshal(map[string]string{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(b)
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Errorf("%s: %s does not parse: %v", class, out, err)
			continue
		}
		if back["name"] != name {
			t.Errorf("%s: %q came back as %q (from %s)", class, name, back["name"], out)
		}
		if r >= 0x7f && strings.ContainsRune(string(out), r) {
			t.Errorf("%s: %U raw in %s", class, r, out)
		}
	}
}

// The text form of an astral rune is unambiguous: eight hex digits, and
// strconv reads it back as the same rune.
func TestTextAstralNotation(t *testing.T) {
	if got := Text("tag\U000E0041x"); got != `tag\U000e0041x` {
		t.Errorf("Text = %q", got)
	}
	for class, r := range escapedClasses {
		in := "a" + string(r) + "1"
		out := Text(in)
		if strings.ContainsRune(out, r) {
			t.Errorf("%s: %U raw in %q", class, r, out)
			continue
		}
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(out, `"`, `\"`) + `"`)
		if err != nil || back != in {
			t.Errorf("%s: %q reads back as %q (%v)", class, out, back, err)
		}
	}
}

// The gate keeps strings apart: a real U+202E and the six characters
// \u202e typed gave one output (and one label value, which blanked the
// whole /metrics).
func TestTextIsInjective(t *testing.T) {
	ins := []string{"evil\u202eflip", `evil\u202eflip`, `evil\\u202eflip`, "a\nb", `a\nb`, "a\\", "a\\\\", "\xff", `\xff`,
		"\x1b[31m", `\x1b[31m`, "\U000e0041", `\U000e0041`, "plain", ""}
	seen := map[string]string{}
	for _, in := range ins {
		out := Text(in)
		if prev, ok := seen[out]; ok {
			t.Errorf("%q and %q both give %q", prev, in, out)
		}
		seen[out] = in
	}
}

func FuzzTextIsInjective(f *testing.F) {
	f.Add("evil\u202eflip", `evil\u202eflip`)
	f.Add("\\", `\\`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if a != b && Text(a) == Text(b) {
			t.Errorf("%q and %q both give %q", a, b, Text(a))
		}
	})
}
