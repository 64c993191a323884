package ui

import (
	"strings"

	"github.com/echomq/emqtop/model"
)

// listOrder is the queue list's order: the sort's order of every queue
// (all), and the rows a filter keeps of it (shown). The next fold's order
// is made from the last one at the cost of what changed
// (model.Fold.ViewAfter), never by sorting a million rows again, and a new
// filter cuts its rows from an order already made: from the last filter's
// rows when it narrows them (a key typed), else from all.
type listOrder struct {
	all, shown order
}

// order is one sorted, filtered order of a fold, and what it was made for.
type order struct {
	fold   *model.Fold
	filter string
	key    model.SortKey
	rev    bool
	view   model.Order // shared: copied before anything reorders or cuts it; the next ViewAfter spends it
}

func (o *listOrder) of(f *model.Fold, filter string, key model.SortKey, rev bool) []int {
	if filter == "" {
		o.shown = order{} // its rows are not kept while no filter is typed
		return o.all.of(f, "", key, rev)
	}
	// (the shown rows' array is o.shown's alone: all's is never cut)
	s := &o.shown
	if s.fold != nil && s.filter == filter && s.key == key && s.rev == rev {
		return s.of(f, filter, key, rev)
	}
	from := s.view // a key that narrows the filter: cut in place
	if s.fold != f || s.key != key || s.rev != rev || s.filter == "" ||
		!strings.Contains(strings.ToLower(filter), strings.ToLower(s.filter)) {
		o.all.of(f, "", key, rev)
		from = o.all.view // into the last rows' array: all's is kept
	}
	*s = order{fold: f, filter: filter, key: key, rev: rev, view: f.Cut(s.view.Rows, from, filter)}
	return s.view.Rows
}

func (o *order) of(f *model.Fold, filter string, key model.SortKey, rev bool) []int {
	switch {
	case o.fold == f && o.filter == filter && o.key == key && o.rev == rev:
		return o.view.Rows
	case o.fold != nil && o.filter == filter && o.key == key && o.rev == rev:
		o.view = f.ViewAfter(o.fold, o.view, filter, key, rev)
	default:
		o.view = f.Sorted(filter, key, rev)
	}
	o.fold, o.filter, o.key, o.rev = f, filter, key, rev
	return o.view.Rows
}
