// Package ui is the Bubble Tea program: a root model and one component per
// pane.
//
// A component (Component) owns its state (cursor, offset, scroll), its key
// map (a help.KeyMap of key.Binding), its size (SetSize, handed out by the
// root's layout once per size change or focus move), Update and View; all
// of them take a pointer receiver. The panes are the pane table's entries
// (panes.go: the queue list, the heatmap, the nodes, the foreign keys, the
// lease timeline, the trend, pending and active, and the compact layout's
// tab box); the overlays are the job detail, the find, the help screen and
// the action dialog.
//
// The root (Model) owns the loop (polls, generations, the clock), the
// layout, the focus and the routing, all walking two tables: the pane
// table (focus order, where each pane is drawn, zoom, mouse zones, the
// help's groups) and the action table (actiontable.go: every key the root
// acts on, whether it writes, why it is off now). A key goes to the open
// overlay, else to the focused component when its key map holds the key,
// else to the action table, which runs it or says why it is off. The help
// line is the focused component's keys and the root's. A click goes to the
// pane whose zone it fell in, which finds its row or cell by the zones it
// marked in its View. Components talk to the root with messages (a job to
// open, a queue to select, an action to confirm), and every result of async
// work names what it answers (the poll's sequence, the job's queue and id,
// the session's sequence of dialogs and finds): an answer for something no
// longer on screen is dropped.
//
// Every string that came from a server passes internal/textgate before it is
// drawn; TestHostileEverywhere sets every string field of a snapshot, by
// reflection, to text of terminal escapes and draws every pane and overlay,
// so a new field that bypasses the gate fails it. The package talks to the
// poller and the protocol only through Source and Actions.
package ui
