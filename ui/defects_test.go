package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/echomq/emqtop/model"
)

// Init arms the first poll on the model itself: p, p before the first
// snapshot must not start a second Poll beside the first (Poll is not safe
// for concurrent use).
func TestInitPollIsInFlight(t *testing.T) {
	src := &fakeSource{snap: fixture(0)}
	m := New(src, asciiTheme("dark"), Options{Now: func() time.Time { return fixedNow }})
	_ = m.Init() // its poll is "running": not executed here
	m.Update(keyMsg("p"))
	_, cmd := m.Update(keyMsg("p"))
	if cmd != nil {
		cmd()
	}
	if src.polls != 0 {
		t.Errorf("p, p during the first poll started %d more polls", src.polls)
	}
}

// A job row that arrives for another job than the one on screen is
// dropped: open A, esc, open B, and A's late answer never shows in B's
// detail (the fence r uses comes from that screen).
func TestJobAnswerKnowsItsJob(t *testing.T) {
	src := &fakeSource{snap: fixture(0), jobs: map[string]model.JobDetail{
		stuckID:  {Queue: "orders", ID: stuckID, Exists: true, State: "active", Attempts: "2", Payload: "PAYLOAD-OF-A", PayloadLen: 12},
		stuck2ID: {Queue: "orders", ID: stuck2ID, Exists: true, State: "active", Attempts: "1", Payload: "PAYLOAD-OF-B", PayloadLen: 12},
	}}
	m := ready(src, 120, 40, Options{})
	// enter opens the job; the command it returns reads the row
	open := func() tea.Msg {
		_, read := m.Update(keyMsg("enter"))
		return read()
	}
	press(m, "shift+tab") // the Active pane, on the first job (A)
	answerA := open()
	press(m, "esc", "down")
	answerB := open()
	m.Update(answerA) // A's answer, late
	if v := m.View(); strings.Contains(v, "PAYLOAD-OF-A") {
		t.Fatalf("B's detail shows A's payload:\n%s", v)
	}
	m.Update(answerB)
	if v := m.View(); !strings.Contains(v, "PAYLOAD-OF-B") {
		t.Errorf("B's own answer is not shown:\n%s", v)
	}
}

// The queue list scrolls only when the selection would leave it: after G,
// k moves the selection up one row and the list stays put.
func TestQueueListKeepsItsOffset(t *testing.T) {
	m := ready(&fakeSource{snap: fixture(100)}, 120, 40, Options{})
	rows := func() (first string, sel int) {
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		for i, l := range lines {
			if strings.Contains(l, "NAME") && strings.Contains(l, "SLOT") {
				first = strings.Fields(lines[i+1])[1]
			}
			if strings.Contains(l, "▶") {
				sel = i
			}
		}
		return first, sel
	}
	press(m, "G")
	first, sel := rows()
	press(m, "k")
	first2, sel2 := rows()
	if first2 != first || sel2 != sel-1 {
		t.Errorf("after G then k: first row %q → %q, selection on line %d → %d; want the list still and the selection one up",
			first, first2, sel, sel2)
	}
}
