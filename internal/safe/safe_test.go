package safe

import (
	"encoding/json"
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
