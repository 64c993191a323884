package poller

// A change-driven poll reads some batches in part: the queues of a slot
// that were written, not the whole slot (change.go).

// part is the batch of the queues at ks only; the others' readings carry
// over.
func (b batch) part(ks []int, a *partArena) batch {
	// ks is ascending and without repeats (reason): only the parts read
	// are touched, not the whole batch (its arrays are cold: a batch of 61
	// queues walked for the one written was most of this poll's misses)
	out := batch{slot: b.slot, owner: b.owner, hist: b.hist, home: b.home}
	out.queues, out.idx, out.detail = a.cut(len(ks))
	for j, k := range ks {
		out.queues[j], out.idx[j], out.detail[j] = b.queues[k], b.idx[k], b.detail[k]
	}
	return out
}

// partArena is where a poll's batches read in part take their arrays:
// cut from three arrays, which the next poll cuts from again (the last
// poll's batches are done with by then, as its outs are). An array that
// fills is left to the batches cut from it and a new one, twice as long,
// is cut from next.
type partArena struct {
	queues []string
	idx    []int
	detail []bool
}

func (a *partArena) reset() {
	clear(a.queues) // the names are not held past the poll that read them
	a.queues, a.idx, a.detail = a.queues[:0], a.idx[:0], a.detail[:0]
}

// cut is n places of each array.
func (a *partArena) cut(n int) ([]string, []int, []bool) {
	if len(a.queues)+n > cap(a.queues) {
		c := max(2*cap(a.queues), n, 64)
		a.queues, a.idx, a.detail = make([]string, 0, c), make([]int, 0, c), make([]bool, 0, c)
	}
	k := len(a.queues)
	a.queues, a.idx, a.detail = a.queues[:k+n], a.idx[:k+n], a.detail[:k+n]
	return a.queues[k : k+n : k+n], a.idx[k : k+n : k+n], a.detail[k : k+n : k+n]
}
