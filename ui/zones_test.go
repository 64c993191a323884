package ui

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// untilZones waits until the zones of the frame just drawn are kept: each
// drawn pane's zone is its rect (bubblezone keeps a frame's zones in a
// worker of its own, so they land a moment after the frame). Under an
// overlay the panes have none and nothing is waited for.
func untilZones(t *testing.T, m *Model) {
	t.Helper()
	if m.overlay() != nil {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, d := range m.drawn {
		for {
			z := m.c.zones.Get(paneZone(d.i))
			if z != nil && z.StartX == d.r.x && z.StartY == d.r.y && z.EndX == d.r.x+d.r.w-1 && z.EndY == d.r.y+d.r.h-1 {
				break
			}
			if time.Now().After(deadline) {
				if z == nil {
					t.Fatalf("pane %d at %+v: no zone kept", d.i, d.r)
				}
				t.Fatalf("pane %d at %+v: its zone is (%d,%d)-(%d,%d)", d.i, d.r, z.StartX, z.StartY, z.EndX, z.EndY)
			}
			<-time.After(time.Millisecond)
		}
	}
}

// TestZonesKeptWhereTaken: a frame takes the panes' mouse zones anew only
// when where they fall changed (a size, a zoom, a focus that arranges the
// panes otherwise, an overlay shut); a new snapshot, a move of the cursor,
// another sort keep them. After every frame of a random walk each drawn
// pane's zone is its rect, whether taken or kept.
func TestZonesKeptWhereTaken(t *testing.T) {
	src := &fakeSource{snap: fixture(30)}
	m := ready(src, 120, 40, Options{})
	rng := rand.New(rand.NewPCG(7, 11))
	sizes := [][2]int{{120, 40}, {100, 30}, {80, 24}, {200, 60}}
	taken, kept := 0, 0
	byOp := map[int]int{}
	for step := 0; step < 300; step++ {
		before, held := m.zoneScans, m.zonesAt != ""
		drawn, w, h := slices.Clone(m.drawn), m.width, m.height
		op := rng.IntN(6)
		switch op {
		case 0: // a new snapshot: other figures, the same places
			s := *fixture(20 + rng.IntN(20))
			m.Update(snapshotMsg{external: true, snap: &s})
		case 1: // the cursor
			press(m, []string{"down", "up", "j", "k"}[rng.IntN(4)])
		case 2: // another pane, zoomed or not
			press(m, []string{"tab", "shift+tab", "z"}[rng.IntN(3)])
		case 3: // another size
			sz := sizes[rng.IntN(len(sizes))]
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		case 4: // the help, open or shut
			press(m, "?")
		case 5: // the sort
			press(m, "s")
		}
		m.View()
		untilZones(t, m)
		if m.zoneScans > before {
			byOp[op]++
			taken++
		} else {
			kept++
		}
		same := slices.Equal(drawn, m.drawn) && w == m.width && h == m.height
		if held && same && m.overlay() == nil && m.zoneScans > before {
			t.Fatalf("step %d (op %d): the panes where they were, and their zones taken anew", step, op)
		}
	}
	if taken == 0 || kept == 0 {
		t.Fatalf("zones taken in %d frames, kept in %d: the walk did not try both", taken, kept)
	}
	t.Logf("zones taken in %d frames, kept in %d; taken by op %v", taken, kept, byOp)
}
