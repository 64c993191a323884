package serve

import (
	"io"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-osc52/v2"
)

// Clipboard writes text to the operator's clipboard with OSC 52, the
// sequence the terminal (local, or at the far end of SSH) acts on; inside
// tmux or screen it is wrapped so that it passes through them. Only what
// the operator chose to copy is ever sent: server text never is.
func Clipboard(out io.Writer, getenv func(string) string) func(string) error {
	var mu sync.Mutex
	return func(text string) error {
		seq := osc52.New(text)
		switch {
		case getenv("TMUX") != "":
			seq = seq.Tmux()
		case strings.HasPrefix(getenv("TERM"), "screen"):
			seq = seq.Screen()
		}
		mu.Lock()
		defer mu.Unlock()
		_, err := seq.WriteTo(out)
		return err
	}
}
