package ui

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/model"
)

// hostileText is what a server may send where text is expected: a screen
// clear, an OSC 52 clipboard write, an 8-bit CSI, a bidi override, a
// zero-width space and an astral tag rune.
const hostileText = "\x1b[2J\x1b]52;c;aGk=\x07\u009b31m\u202e\u200b\U000E0041"

// rawRunes must never reach the screen.
var rawRunes = []string{"\x1b[2J", "\x1b]", "\x07", "\u009b", "\u202e", "\u200b", "\U000E0041"}

// poison sets every string reachable from v (struct fields, slices,
// arrays, pointers) to hostile text, numbered so that names stay distinct.
// A field added to the model later is poisoned too: this is how a new
// field is kept from bypassing the gate.
func poison(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			*n++
			v.SetString(fmt.Sprintf("%s%d", hostileText, *n))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			poison(v.Elem(), n)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				poison(v.Field(i), n)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			poison(v.Index(i), n)
		}
	}
}

// TestHostileEverywhere draws every pane and overlay, at three sizes, of a
// snapshot whose every string is hostile, and finds none of it raw.
func TestHostileEverywhere(t *testing.T) {
	snap := fixture(3)
	n := 0
	poison(reflect.ValueOf(snap), &n)
	for i := range snap.Queues.Len() { // keep the jobs openable and requeueable
		for j := range snap.Queues.At(i).ActiveJobs() {
			snap.Queues.At(i).ActiveJobs()[j].Valid, snap.Queues.At(i).ActiveJobs()[j].AttemptsOK = true, true
		}
	}
	detail := model.JobDetail{Exists: true}
	poison(reflect.ValueOf(&detail), &n)
	if n < 50 {
		t.Fatalf("only %d strings poisoned: the walk misses the model", n)
	}
	modes := map[string][]string{
		"panes": nil, "heatmap": {"tab", "right", "down"}, "pending": {"shift+tab", "shift+tab"}, "active": {"shift+tab"},
		"help": {"?"}, "requeue": {"shift+tab", "r"}, "requeue-all": {"R"}, "drain": {"D"}, "filter": {"/", "x"},
		"flash": {"tab", "tab", "tab", "r"},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		for name, keys := range modes {
			src := &fakeSource{snap: snap}
			m := ready(src, size[0], size[1], Options{Actions: &fakeActions{}, Target: hostileText, Demo: hostileText})
			press(m, keys...)
			check(t, fmt.Sprintf("%s at %dx%d", name, size[0], size[1]), m.View())
		}
		// the detail of an active job, with its hostile row
		m := ready(&fakeSource{snap: snap}, size[0], size[1], Options{Actions: &fakeActions{}})
		press(m, "shift+tab", "enter")
		if m.detail == nil {
			t.Fatal("no detail opened")
		}
		d := detail
		m.Update(jobMsg{queue: m.detail.q.Name, id: m.detail.job.ID, d: d})
		check(t, fmt.Sprintf("detail at %dx%d", size[0], size[1]), m.View())
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
	}
}

func check(t *testing.T, where, view string) {
	t.Helper()
	for _, r := range rawRunes {
		if strings.Contains(view, r) {
			t.Errorf("%s: %q reached the screen raw", where, r)
		}
	}
	if !strings.Contains(view, `\x1b[2J`) && !strings.Contains(view, `\x1b`) {
		t.Errorf("%s: no hostile text on screen at all, escaped or not", where)
	}
}
