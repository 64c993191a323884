package ui

import "github.com/echomq/emqtop/model"

// listOrder is the sorted, filtered order of a fold, and what it was made
// for: the next fold's order is made from it at the cost of what changed
// (model.Fold.ViewAfter), never by sorting a million rows again.
type listOrder struct {
	fold   *model.Fold
	filter string
	key    model.SortKey
	rev    bool
	view   []int // shared: copied before anything reorders or cuts it; the next ViewAfter spends it
}

func (o *listOrder) of(f *model.Fold, filter string, key model.SortKey, rev bool) []int {
	switch {
	case o.fold == f && o.filter == filter && o.key == key && o.rev == rev:
		return o.view
	case o.fold != nil && o.filter == filter && o.key == key && o.rev == rev:
		o.view = f.ViewAfter(o.fold, o.view, filter, key, rev)
	default:
		o.view = f.View(filter, key, rev)
	}
	o.fold, o.filter, o.key, o.rev = f, filter, key, rev
	return o.view
}
