package serve

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// The clipboard writes one OSC 52 sequence with the text in base64, wrapped
// for tmux and screen so that they pass it to the terminal.
func TestClipboardWritesOSC52(t *testing.T) {
	text := "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY"
	b64 := base64.StdEncoding.EncodeToString([]byte(text))
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM": "xterm-256color"}, "\x1b]52;c;" + b64 + "\x07"},
		{map[string]string{"TMUX": "/tmp/tmux-0/default,1,0"}, "\x1bPtmux;\x1b\x1b]52;c;" + b64 + "\x07\x1b\\"},
		{map[string]string{"TERM": "screen.xterm-256color"}, "\x1bP\x1b]52;c;" + b64 + "\x07\x1b\\"},
	} {
		var out bytes.Buffer
		if err := Clipboard(&out, func(k string) string { return c.env[k] })(text); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("%v: wrote %q, want %q", c.env, out.String(), c.want)
		}
	}
}
