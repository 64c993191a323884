package model

// PutQueue is Put of q's values under its name, and sets q's Past: the
// series is the one q carries (CarryPast) when it is this history's for
// that name (a compare of the name's bytes, not a look-up), else found
// by name, and q carries it from then on.
func (h *History) PutQueue(q *Queue, v [Metrics]int64) {
	id, ok := h.carried(q)
	if !ok {
		id, ok = h.ids.ID(q.Name)
		if !ok {
			id = h.add(q.Name)
		}
	}
	q.Past = h.put(id, v)
}

// GapQueue is Gap of q's series, q's Past then (a queue never put stays
// unknown).
func (h *History) GapQueue(q *Queue) {
	id, ok := h.carried(q)
	if !ok {
		if id, ok = h.ids.ID(q.Name); !ok {
			q.Past = Past{}
			return
		}
	}
	h.set(id, gapValues)
	q.Past = h.pastOf(id)
}

// carried is the series q carries, when it is this history's series of
// q's name (a queue from another history's polls carries another's).
func (h *History) carried(q *Queue) (int, bool) {
	id := int(q.Past.id) - 1
	if id < 0 || id >= len(h.s) || h.ids.Name(id) != q.Name {
		return 0, false
	}
	return id, true
}
