package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/model"
)

// How the poller reads is on screen: each primary's load against the
// budget, "reads what changed" or which nodes are read in full and why;
// when the budget stretches the interval, the status bar says so and the
// next poll waits for it.
func TestReadModeAndBudget(t *testing.T) {
	snap := fixture(0)
	m := ready(&fakeSource{snap: snap}, 120, 40, Options{Interval: time.Second})
	v := m.View()
	for _, want := range []string{"LOAD", "0.20%", "reads changes · sweep 1m · budget 2.0%/node"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "budget: polling") {
		t.Error("the budget is said to slow the polls when it does not")
	}
	if m.pollEvery() != time.Second {
		t.Errorf("polls every %v", m.pollEvery())
	}

	// one node refuses tracking and costs past the budget; the budget
	// asks for 2.5s between polls
	snap = fixture(0)
	var addr string
	for i := range snap.Nodes {
		if n := &snap.Nodes[i]; n.Role == model.RolePrimary && addr == "" {
			n.Tracking, n.Full, n.Load, addr = false, "tracking refused (NOPERM \x1b[31mno)", 0.05, n.Addr
		}
	}
	snap.Poll.MinInterval = 2500 * time.Millisecond
	m = ready(&fakeSource{snap: snap}, 200, 60, Options{Interval: time.Second})
	v = m.View()
	short := addr[strings.LastIndexByte(addr, ':'):]
	for _, want := range []string{"reads " + short + " in full: tracking refused (NOPERM", "5.0%", "budget: polling every 2.5s, not 1s",
		"every 2.5s (budget 2.0% a node; asked 1s)"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b[31mno") {
		t.Error("a server's words reached the terminal raw")
	}
	if m.pollEvery() != 2500*time.Millisecond {
		t.Errorf("polls every %v, not the budget's 2.5s", m.pollEvery())
	}
}

// While a primary's first discovery pass is under way, the status bar says
// how far the least walked one has gone; once every one is walked, nothing.
func TestDiscoveryProgressOnScreen(t *testing.T) {
	snap := fixture(0)
	snap.Nodes[0].Discovering, snap.Nodes[0].Walked = true, 0.87
	snap.Nodes[1].Discovering, snap.Nodes[1].Walked = true, 0.41
	m := ready(&fakeSource{snap: snap}, 160, 40, Options{Interval: time.Second})
	if v := m.View(); !strings.Contains(v, "discovering: 41% of :7001's keys walked") {
		t.Errorf("no discovery progress:\n%s", v)
	}
	done := fixture(0)
	if v := ready(&fakeSource{snap: done}, 160, 40, Options{Interval: time.Second}).View(); strings.Contains(v, "discovering") {
		t.Errorf("discovery said when done:\n%s", v)
	}
}
