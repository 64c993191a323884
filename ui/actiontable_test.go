package ui

import (
	"strings"
	"testing"
)

// Read-only removes every writing action at once: in a read-only session,
// every key of every key map, pressed on every pane and then confirmed
// (y, enter, the queue's name), writes nothing and opens no dialog. A new
// key that writes and is not marked so in the action table fails here.
func TestReadOnlyRemovesEveryWrite(t *testing.T) {
	var keys []string
	m0 := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{})
	for _, g := range m0.keyGroups() {
		for _, col := range g.keys.FullHelp() {
			for _, b := range col {
				keys = append(keys, b.Keys()...)
			}
		}
	}
	for p, e := range m0.panes {
		if !e.focus {
			continue
		}
		for _, k := range keys {
			if k == "q" || k == "ctrl+c" {
				continue
			}
			acts := &fakeActions{pending: 50}
			m := ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts, ReadOnly: true})
			m.setFocus(pane(p))
			m = press(m, k)
			opened := m.dialog != nil
			m = press(m, "y", "enter")
			m = press(m, strings.Split("orders", "")...)
			m = press(m, "enter")
			if opened || m.dialog != nil || len(acts.requeued) != 0 || acts.drained != 0 {
				t.Errorf("read-only, pane %s, key %q: a dialog opened (%v) or a write was made (%v, %d drained)",
					e.name, k, opened, acts.requeued, acts.drained)
			}
		}
	}
	// and the same keys with write access do write: the test can fail
	acts := &fakeActions{pending: 50}
	m := press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts}), "shift+tab", "r", "y")
	m = press(ready(&fakeSource{snap: fixture(0)}, 120, 40, Options{Actions: acts}), "D")
	m = press(m, strings.Split(m.dialog.a.queue, "")...)
	_, cmd := m.Update(keyMsg("enter"))
	settle(m, cmd, true)
	if len(acts.requeued) != 1 || acts.drained == 0 {
		t.Errorf("with write access r, y requeued %v; D drained %d", acts.requeued, acts.drained)
	}
}

// A key that is off says its real reason: a serve reader is told it is a
// reader, --read-only says so, NOPERM says so; + in a shared session says
// the server polls; f on a source that cannot find says so. The help line
// shows none of the keys that are off.
func TestAnOffKeySaysWhy(t *testing.T) {
	reader := Options{Actions: nil, ReadOnly: true, ReadOnlyWhy: "you are a reader here (your key is in --readers)"}
	for _, c := range []struct {
		opt  Options
		keys []string
		want string
	}{
		{reader, []string{"R"}, "you are a reader"},
		{reader, []string{"shift+tab", "r"}, "you are a reader"},
		{reader, []string{"D"}, "r, R and D are off"},
		{Options{Actions: &fakeActions{}, ReadOnly: true}, []string{"D"}, "--read-only is set"},
		{Options{}, []string{"R"}, "no write access was configured"},
		{Options{Actions: &fakeActions{}}, []string{"r"}, "select an active job first"},
		{Options{Actions: &fakeActions{}, Shared: true}, []string{"+"}, "the server polls every 1s for every session"},
		{Options{Actions: &fakeActions{}}, []string{"f"}, "find is not available on this source"},
	} {
		m := press(ready(&fakeSource{snap: fixture(0)}, 200, 40, c.opt), c.keys...)
		if !m.flashBad || !strings.Contains(m.flash, c.want) {
			t.Errorf("%v then %v: said %q, want %q", c.opt, c.keys, m.flash, c.want)
		}
		m.flash = ""
		line := m.helpLine()
		for _, a := range m.acts {
			if m.why(a) != "" && a.b.Enabled() {
				t.Errorf("%v: %q is off (%s) but enabled", c.opt, a.b.Help().Key, m.why(a))
			}
			if !a.b.Enabled() && strings.Contains(line, " "+a.b.Help().Key+" "+a.b.Help().Desc) {
				t.Errorf("%v: the help line offers %q, which is off:\n%s", c.opt, a.b.Help().Key, line)
			}
		}
	}
	m := ready(&fakeSource{snap: fixture(0)}, 200, 40, Options{Actions: &fakeActions{}})
	if !strings.Contains(m.helpLine(), "R requeue expired") {
		t.Errorf("with write access the help line lacks R:\n%s", m.helpLine())
	}
}
