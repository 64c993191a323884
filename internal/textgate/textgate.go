// Package textgate is the one sanitiser every string from a server passes
// before it reaches a terminal: queue names, job ids, payloads, error texts.
// Control characters, escape sequences (CSI, OSC, OSC 52 clipboard writes
// included), C1 controls, bidirectional overrides and invalid UTF-8 come
// out as visible, inert escapes; nothing of the input reaches the terminal
// raw.
package textgate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text makes s safe to print, and keeps two strings apart (no two inputs
// give one output): printable runes pass, a backslash is doubled, "\n" and "\t" become
// `\n` and `\t`, other control and format runes `\x1b`, `\u202e` or, above
// U+FFFF, `\U000e0041` (Go's notation: never read as four digits and a
// "1"), and a byte of invalid UTF-8 `\xff`. The result is valid UTF-8 with no control
// character in it.
func Text(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	write(&b, s, false)
	return b.String()
}

// Lines is Text but keeps "\n" as a line break (for a payload view).
func Lines(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	write(&b, s, true)
	return b.String()
}

// clean reports whether s is printable ASCII, the common case, so it can be
// returned without a copy.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

func write(b *strings.Builder, s string, keepNL bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r == '\n' && keepNL:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\\': // so the escapes are injective: the six characters \u202e typed are not U+202E
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case inert(r):
			b.WriteString(s[i : i+n])
		case r > 0xffff: // astral format runes (tags): eight digits, never read as four and a digit
			fmt.Fprintf(b, `\U%08x`, r)
		default: // C1 controls, bidi overrides, zero-width and other format runes
			fmt.Fprintf(b, `\u%04x`, r)
		}
		i += n
	}
}

// Bounded is Text of at most max bytes of s; when s is longer it says how
// long it was.
func Bounded(s string, max int) string {
	if len(s) <= max {
		return Text(s)
	}
	cut := max
	for cut > 0 && cut > max-4 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return Text(s[:cut]) + fmt.Sprintf("…(%s in all)", Size(len(s)))
}

// Size words a byte count.
func Size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// inert reports whether a terminal shows r as itself: a space, or a
// printable rune that is not a format rune (bidi overrides, zero-width
// joiners, tags).
func inert(r rune) bool {
	return r == ' ' || (unicode.IsPrint(r) && !unicode.Is(unicode.Cf, r))
}

// JSON escapes, in marshalled JSON, the runes encoding/json lets through
// that a terminal may still act on, the same runes Text escapes: DEL, C1
// controls (U+0080–U+009F, of which U+009B is CSI and U+009D is OSC), format
// runes such as bidirectional overrides, and unassigned runes; above U+FFFF
// as a surrogate pair, the only form JSON reads. They can only occur inside
// strings, so the result is the same JSON value.
func JSON(b []byte) []byte { return AppendJSON(make([]byte, 0, len(b)), b) }

// AppendJSON appends JSON(b) to out: a writer of many small documents
// reuses one buffer (--once of a million queues made 250 MB of garbage
// gating each queue into a new one).
func AppendJSON(out, b []byte) []byte {
	for i := 0; i < len(b); {
		if c := b[i]; c < 0x7f { // most of it: a run of plain ASCII at once
			j := i + 1
			for j < len(b) && b[j] < 0x7f {
				j++
			}
			out = append(out, b[i:j]...)
			i = j
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r < 0x7f || inert(r):
			out = append(out, b[i:i+n]...)
		case r > 0xffff:
			// JSON has only \uXXXX: a rune above U+FFFF is a surrogate pair
			hi, lo := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
	}
	return out
}
