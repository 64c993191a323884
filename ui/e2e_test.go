package ui

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// TestProgram runs the whole program against a fake source: it starts,
// shows the queues, moves, opens help and quits.
func TestProgram(t *testing.T) {
	src := &fakeSource{snap: fixture(20)}
	m := New(src, asciiTheme("dark"), Options{Target: "fake", Interval: 50 * time.Millisecond, Now: func() time.Time { return fixedNow }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("orders")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("Help · rows 1–")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := tm.FinalModel(t).(*Model)
	if final.queues.sel != 1 {
		t.Errorf("selection %d after one ↓", final.queues.sel)
	}
	src.mu.Lock()
	polls := src.polls
	src.mu.Unlock()
	if polls < 1 {
		t.Error("the program never polled")
	}
	out, _ := io.ReadAll(tm.FinalOutput(t))
	if strings.Contains(string(out), "\x1b]52") {
		t.Error("an OSC 52 sequence reached the terminal")
	}
}
