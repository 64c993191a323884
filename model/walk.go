package model

// WalkByName walks two lists of queues sorted by name side by side and
// calls f for each name: i its place in cur, j in prev, -1 where that list
// has no such name. A queue carried from prev is the same *Queue in both
// (f can tell with a pointer compare, no read of it); a name in both that
// is not is a new reading. A run of queues in a chunk both lists share
// (every queue of it carried, at the same place) goes to shared, lo to hi
// exclusive, without a look at any queue, and so does a run of the same
// queues at the same places in a chunk that is not shared (a chunk of 64
// with one queue read anew: two runs, one call of f, and no name
// compared); with shared nil, to f one by one. f or shared returns false
// to stop the walk, and then WalkByName does.
func WalkByName(cur, prev QueueList, shared func(lo, hi int) bool, f func(i, j int) bool) bool {
	i, j := 0, 0
	n, m := cur.Len(), prev.Len()
	carried := func(lo, hi int) bool {
		if shared != nil {
			return shared(lo, hi)
		}
		for k := lo; k < hi; k++ {
			if !f(k, k) {
				return false
			}
		}
		return true
	}
	if cur.from.of(prev) {
		// cur is prev with readings replaced at these places: the
		// others are prev's queues, where they were
		lo := 0
		for _, i := range cur.from.idx {
			if lo < i && !carried(lo, i) {
				return false
			}
			if !f(i, i) {
				return false
			}
			lo = i + 1
		}
		return lo >= n || carried(lo, n)
	}
	for i < n || j < m {
		if i == j && i < n && i&(QueueChunk-1) == 0 {
			end, ok := 0, true
			if cur.Shares(prev, i) {
				// a chunk both share: every queue of it carried, none looked at
				end = min(ChunkEnd(i), n)
				ok = carried(i, end)
			} else {
				end, ok = walkChunk(cur, prev, i, carried, f)
			}
			if !ok {
				return false
			}
			if end > i {
				i, j = end, end
				continue
			}
		}
		var more bool
		var c, p *Queue
		if i < n {
			c = cur.At(i)
		}
		if j < m {
			p = prev.At(j)
		}
		switch {
		case c != nil && p != nil && c == p:
			more = f(i, j)
			i, j = i+1, j+1
		case p == nil || (c != nil && c.Name < p.Name):
			more = f(i, -1)
			i++
		case c == nil || c.Name > p.Name:
			more = f(-1, j)
			j++
		default:
			more = f(i, j)
			i, j = i+1, j+1
		}
		if !more {
			return false
		}
	}
	return true
}

// walkChunk walks the chunk at place i (a chunk's first) of two lists
// that hold a chunk there of as many places: runs of the same queue at the
// same place go to carried, a place with the same name but a new reading
// to f(k, k). It stops at the first place whose names differ (a queue
// came or went: the caller walks on by name) and returns where, and
// false when carried or f did.
func walkChunk(cur, prev QueueList, i int, carried func(lo, hi int) bool, f func(i, j int) bool) (int, bool) {
	c := i >> queueChunkBits
	if c >= len(cur.chunks) || c >= len(prev.chunks) {
		return i, true
	}
	if cur.chunkLen(c) != prev.chunkLen(c) {
		return i, true
	}
	a, b := cur.chunk(c), prev.chunk(c)
	run := 0 // the first place of the run of carried queues under way
	for k := range a {
		if a[k] == b[k] {
			continue
		}
		if a[k].Name != b[k].Name {
			if run < k && !carried(i+run, i+k) {
				return i, false
			}
			return i + k, true
		}
		if run < k && !carried(i+run, i+k) {
			return i, false
		}
		if !f(i+k, i+k) {
			return i, false
		}
		run = k + 1
	}
	if run < len(a) && !carried(i+run, i+len(a)) {
		return i, false
	}
	return i + len(a), true
}
