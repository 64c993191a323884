// Package ui is the Bubble Tea program: a root model and one component per
// pane.
//
// A component (Component) owns its state (cursor, offset, scroll), its key
// map (a help.KeyMap of key.Binding), its size (SetSize, handed out by the
// root's layout once per size change), Update and View; all of them take a
// pointer receiver. The components are the heatmap (heatPane), the nodes
// pane, the queue list, the pending and active panes (jobsPane), the lease
// timeline, and the overlays: the job detail, the help screen and the
// action dialog.
//
// The root (Model) owns the loop (polls, generations, the clock), the
// layout, the focus and the routing: a key goes to the open overlay, else
// to the focused component when its key map holds the key, else to the
// global key map. The help line is the global keys and the focused
// component's. Components talk to the root with messages (a job to open, a
// queue to select, an action to confirm), and every result of async work
// names what it answers (the poll's sequence, the job's queue and id, the
// action's sequence): an answer for something no longer on screen is
// dropped.
//
// Every string that came from a server passes internal/textgate before it is
// drawn; TestHostileEverywhere sets every string field of a snapshot, by
// reflection, to text of terminal escapes and draws every pane and overlay,
// so a new field that bypasses the gate fails it. The package talks to the
// poller and the protocol only through Source and Actions.
package ui
