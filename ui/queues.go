package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

type listKeys struct {
	moveKeys
	Enter key.Binding
}

func newListKeys() listKeys {
	return listKeys{moveKeys: newMoveKeys(), Enter: bind([]string{"enter"}, "enter", "to its active jobs")}
}

func (k listKeys) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Enter} }
func (k listKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top}, {k.Bottom, k.PageUp, k.PageDown}, {k.Enter}}
}

// filterKeys are the filter's own while it is typed: every other key is text.
type filterKeys struct {
	Keep, Clear key.Binding
}

func newFilterKeys() filterKeys {
	return filterKeys{
		Keep:  bind([]string{"enter", "up", "down", "tab"}, "enter", "keep the filter"),
		Clear: bind([]string{"esc"}, "esc", "clear the filter"),
	}
}

func (k filterKeys) ShortHelp() []key.Binding  { return []key.Binding{k.Keep, k.Clear} }
func (k filterKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// queueList is the queue list: sortable, filterable, only the visible rows
// drawn; it keeps its selection on the same queue, by name, across polls.
type queueList struct {
	c           *common
	keys        listKeys
	w, h        int
	focused     bool
	view        []int // indexes into the fold's queues
	sel, offset int
	name        string // the selected queue's name
	sortKey     model.SortKey
	reverse     bool
	held        []int32 // with o: each queue's row when the order was held (by index in heldFold), -1: none; nil: the sort decides
	heldFold    *model.Fold
	heldRows    int     // the rows held
	byRank      []int32 // hold's buffers, kept between polls
	heldView    []int
	filter      textFilter
	order       listOrder // the sort's order, kept from poll to poll
}

func newQueueList(c *common) *queueList {
	return &queueList{c: c, keys: newListKeys(), filter: newTextFilter("queue name")}
}

func (l *queueList) SetSize(w, h int) { l.w, l.h = w, h; l.keepInSight() }
func (l *queueList) SetFocus(f bool)  { l.focused = f }
func (l *queueList) rows() int        { return max(1, l.h-3) }

func (l *queueList) ShortHelp() []key.Binding  { return l.filter.shortHelp(l.keys) }
func (l *queueList) FullHelp() [][]key.Binding { return l.filter.fullHelp(l.keys) }

// capturing: the filter is being typed, so every key is the list's.
func (l *queueList) capturing() bool { return l.filter.capturing() }

// startFilter opens the filter input.
func (l *queueList) startFilter() tea.Cmd { return l.filter.start() }

// Update moves the selection, or types the filter.
func (l *queueList) Update(msg tea.Msg) tea.Cmd {
	if mm, ok := msg.(tea.MouseMsg); ok { // a click on a row selects it (from the pane's corner: the border and the header first)
		if i := l.offset + mm.Y - 2; mm.Y >= 2 && i < min(len(l.view), l.offset+l.rows()) {
			l.sel = i
			l.name = l.selectedName()
		}
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	if l.filter.capturing() {
		cmd := l.filter.key(km)
		l.refresh()
		return cmd
	}
	if key.Matches(km, l.keys.Enter) {
		return l.c.emit(focusMsg{paneActive})
	}
	if cur, ok := l.keys.move(km, l.sel, len(l.view), l.rows()); ok {
		l.sel = cur
		l.keepInSight()
		l.name = l.selectedName()
	}
	return nil
}

// clearFilter drops the filter; it reports whether there was one.
func (l *queueList) clearFilter() bool {
	if !l.filter.clear() {
		return false
	}
	l.refresh()
	return true
}

func (l *queueList) nextSort()    { l.sortKey = l.sortKey.Next(); l.letGo(); l.refresh() }
func (l *queueList) reverseSort() { l.reverse = !l.reverse; l.letGo(); l.refresh() }

// letGo lets the rows follow the sort again, and drops what held them.
func (l *queueList) letGo() { l.held, l.heldFold, l.byRank, l.heldView = nil, nil, nil, nil }

// toggleHold holds the rows where they are (the live sort moves them
// every poll; htop and k9s offer the same), or lets them follow the sort
// again; it reports whether they are held now. s and S let go too.
func (l *queueList) toggleHold() bool {
	if l.held != nil {
		l.letGo()
		l.refresh()
		return false
	}
	l.held = make([]int32, l.c.fold.Snap.Queues.Len())
	for i := range l.held {
		l.held[i] = -1
	}
	for i, qi := range l.view {
		l.held[qi] = int32(i)
	}
	l.heldFold, l.heldRows = l.c.fold, len(l.view)
	return true
}

// carryHeld moves the held rows to the fold shown: by difference when the
// fold was made after the one they were held on (no work at all when the
// queues are the same), else by name.
func (l *queueList) carryHeld() {
	f := l.c.fold
	if l.heldFold == f {
		return
	}
	held, ok := f.Carry(l.heldFold, l.held)
	if !ok {
		byName := make(map[string]int32, l.heldRows)
		for j, r := range l.held {
			if r >= 0 {
				byName[l.heldFold.Snap.Queues.At(j).Name] = r
			}
		}
		held = make([]int32, f.Snap.Queues.Len())
		for i, q := range f.Snap.Queues.All() {
			if r, in := byName[q.Name]; in {
				held[i] = r
			} else {
				held[i] = -1
			}
		}
	}
	l.held, l.heldFold = held, f
}

// hold orders the view as it was when held: a queue held keeps its place,
// a new one goes last, in the sort's order. The held ranks are distinct,
// so the queues in view are placed by rank in one pass, into buffers kept
// from poll to poll (a map lookup a queue took half a second at a million).
func (l *queueList) hold() {
	l.carryHeld()
	if cap(l.byRank) < l.heldRows {
		l.byRank = make([]int32, l.heldRows)
	}
	byRank := l.byRank[:l.heldRows] // 1 + the queue in view held at each rank; 0: none
	clear(byRank)
	var later []int
	for _, qi := range l.view {
		if r := l.held[qi]; r >= 0 {
			byRank[r] = int32(qi) + 1
		} else {
			later = append(later, qi)
		}
	}
	out := l.heldView[:0] // not the sort's order's array: that is kept for the next poll
	for _, x := range byRank {
		if x > 0 {
			out = append(out, int(x-1))
		}
	}
	l.view = append(out, later...)
	l.heldView = l.view
}

// selectName selects the queue of that name (the filter is cleared so it
// is in view) and reports whether the list holds it.
func (l *queueList) selectName(n string) bool {
	l.filter.SetValue("")
	l.name = n
	l.refresh()
	q := l.selected()
	return q != nil && q.Name == n
}

// refresh recomputes the list from the fold and keeps the selection on
// the same queue by name.
func (l *queueList) refresh() {
	if l.c.fold == nil {
		return
	}
	f := l.filter.Value()
	status, byStatus := strings.CutPrefix(f, "status:")
	if byStatus {
		f = ""
	}
	l.view = l.order.of(l.c.fold, f, l.sortKey, l.reverse)
	if byStatus { // /status:stuck, stalled, growing, error, node (down): the STATUS column's start
		want, snap := strings.TrimSpace(status), l.c.fold.Snap
		var kept []int
		for _, qi := range l.view {
			if statusMatch(l.c.th, snap, snap.Queues.At(qi), want) {
				kept = append(kept, qi)
			}
		}
		l.view = kept
	}
	if l.held != nil {
		l.hold()
	}
	l.sel = 0
	if at := l.c.fold.Index(l.name); at >= 0 {
		l.sel = max(0, slices.Index(l.view, at))
	}
	l.keepInSight()
	l.name = l.selectedName()
}

// keepInSight scrolls only as far as the selection needs.
func (l *queueList) keepInSight() {
	rows := l.rows()
	if l.sel < l.offset {
		l.offset = l.sel
	}
	if l.sel >= l.offset+rows {
		l.offset = l.sel - rows + 1
	}
	l.offset = max(0, min(l.offset, len(l.view)-rows))
}

func (l *queueList) selectedName() string {
	if q := l.selected(); q != nil {
		return q.Name
	}
	return ""
}

// selected is the selected queue, or nil.
func (l *queueList) selected() *model.Queue {
	if l.c.fold == nil || len(l.view) == 0 {
		return nil
	}
	return l.c.fold.Snap.Queues.At(l.view[l.sel])
}

func (l *queueList) border() borderStyle { return focusBorder(l.c.th, l.focused) }

func (l *queueList) View() string {
	th := l.c.th
	in := l.w - 2
	common := commonHost(l.c.snap)
	cols := l.columns(in)
	// the sorted column's header is marked, as htop and btop do; the
	// title says which way it runs in words
	h := func(name string, k model.SortKey) string {
		if l.sortKey != k {
			return name
		}
		return map[bool]string{false: "▾", true: "▴"}[l.reverse] + name
	}
	header := fmt.Sprintf("  %-*s %5s %-8s %8s %8s %8s %7s", cols.nameW, h("NAME", model.SortName), h("SLOT", model.SortSlot),
		h("NODE", model.SortNode), h("PENDING", model.SortPending), h("ACTIVE", model.SortActive), h("EXPIRED", model.SortExpired),
		h("OLDEST", model.SortOldest))
	if cols.sched {
		header += fmt.Sprintf(" %9s", "SCHEDULED")
	}
	if cols.trend {
		header += fmt.Sprintf("  %-*s", model.SparkBuckets+1, h("TREND 1m", model.SortGrowth))
	}
	if cols.status {
		header += "  STATUS"
	}
	lines := []string{th.Header.Render(fit(header, in))}
	for i := l.offset; i < min(len(l.view), l.offset+l.rows()); i++ {
		row := fit(l.row(l.c.fold.Snap.Queues.At(l.view[i]), i == l.sel, in, common, cols), in)
		lines = append(lines, row)
	}
	if len(l.view) == 0 {
		msg := "no queues found yet (discovery scans the primaries a page per poll)"
		if l.filter.Value() != "" {
			msg = "no queue matches the filter (esc clears it)"
		}
		lines = append(lines, th.Dim.Render("  "+msg))
	}
	title := fmt.Sprintf("Queues %d · sort %s, %s", len(l.view), l.sortKey, l.sortKey.Order(l.reverse))
	if l.held != nil {
		title = fmt.Sprintf("Queues %d · order held (o: follow the sort)", len(l.view))
	}
	if rows := l.rows(); len(l.view) > rows {
		title += " · " + position(l.offset, min(len(l.view), l.offset+rows), len(l.view))
	}
	if f := l.filter.Value(); f != "" {
		title += " · filter /" + textgate.Bounded(f, 30)
	}
	return box(l.border(), title, lines, l.w, l.h)
}

// listColumns are the optional columns that fit a width, and the name's.
type listColumns struct {
	nameW                int
	trend, status, sched bool // sched: the SCHEDULED column, as --once has it
}

func (l *queueList) columns(in int) listColumns {
	c := listColumns{nameW: max(8, in-2-6-9-9-9-9-8-2), trend: in >= 90, status: in >= 110}
	if c.trend {
		c.nameW = max(8, c.nameW-model.SparkBuckets-3)
	}
	if c.status {
		c.nameW = min(40, max(8, c.nameW-30))
	}
	c.sched = in >= 130 // before STATUS, which is last and takes what is left
	return c
}

func (l *queueList) row(q *model.Queue, sel bool, in int, common string, cols listColumns) string {
	th := l.c.th
	snap := l.c.fold.Snap
	tr := snap.Trend(q)
	mark := "  "
	if sel {
		mark = "▶ "
	}
	oldest := "–"
	age := snap.OldestAge(q)
	if age >= 0 {
		oldest = ago(time.Duration(age) * time.Millisecond)
	}
	exp := fmt.Sprintf("%8s", human(q.Expired))
	if q.Expired > 0 {
		exp = th.Warn.Render(exp)
	}
	line := mark + fit(textgate.Text(q.Name), cols.nameW) + fmt.Sprintf(" %5d %-8s %8s %8s ", q.Slot, fit(shortAddr(q.Node.Addr(), common), 8),
		human(q.Pending), human(q.Active)) + exp + fmt.Sprintf(" %7s", oldest)
	if cols.sched {
		line += fmt.Sprintf(" %9s", human(q.Scheduled))
	}
	if cols.trend {
		line += "  " + fit(sparkline(th, snap.Spark(q)), model.SparkBuckets) + directionMark(th, tr.Direction)
	}
	status := queueStatus(th, q, tr, age)
	if since, ok := l.c.mem.idle(q.Name); ok && status == "" {
		status = idleStatus(th, since, l.c.now())
	}
	if cols.status {
		line += "  " + status
	} else if status != "" { // no room for the status: a mark says there is one
		flag := "!"
		if q.Stale {
			flag = th.Bad.Render("✗") // its node is down
		}
		line = strings.TrimSuffix(mark, " ") + flag + strings.TrimPrefix(line, mark)
	}
	switch {
	case sel && l.focused:
		return th.Selected.Render(fit(line, in))
	case q.Stale:
		return th.Dim.Render(line)
	}
	return line
}
