package model

import (
	"cmp"
	"slices"
)

// An order by a number (every sort but the node's) is runs of rows of one
// sort value, each run in index order (the name's). Kept with the rows,
// the runs let ViewAfter place a changed queue without reading a queue it
// passes: a binary search of the runs (a few hundred values, in cache) for
// its value, then of that run's rows by index. A search that read each
// queue it compared was ~20 cache misses a changed queue, 6 ms a poll of
// 1,000 changed queues at a million.

// Order is a sorted, filtered view of a fold's queues: Rows are indexes
// into its snapshot's queues, in the order shown.
type Order struct {
	Rows []int
	// runs are the rows' runs of one sort value, in the order's order, when
	// the order is by a number and by name within a value (byValue)
	runs    []valueRun
	byValue bool
}

// valueRun is a run of rows of one sort value, from start to the next
// run's start.
type valueRun struct {
	v     int64
	start int
}

// withRuns is rows (sorted by value, then index, reversed if reverse)
// with their runs; v gives the value of row p.
func withRuns(rows []int, v func(p int) int64) Order {
	o := Order{Rows: rows, byValue: true}
	for p := range rows {
		if x := v(p); p == 0 || x != o.runs[len(o.runs)-1].v {
			o.runs = append(o.runs, valueRun{v: x, start: p})
		}
	}
	return o
}

// runEnd is where run r of o ends.
func (o *Order) runEnd(r int) int {
	if r+1 < len(o.runs) {
		return o.runs[r+1].start
	}
	return len(o.Rows)
}

// keep is o's rows for which at gives a place (>= 0; -1 drops the row),
// at those places, written to dst's array (dst may be o.Rows: in place),
// with the runs of the rows kept. at must keep the index order (a place
// of a later name is later), so a run stays in index order.
func (o Order) keep(dst []int, at func(row int) int) Order {
	out := Order{Rows: dst[:0], byValue: o.byValue}
	if !o.byValue {
		for _, row := range o.Rows {
			if n := at(row); n >= 0 {
				out.Rows = append(out.Rows, n)
			}
		}
		return out
	}
	for r, run := range o.runs {
		first := true
		for _, row := range o.Rows[run.start:o.runEnd(r)] {
			if n := at(row); n >= 0 {
				if first {
					out.runs = append(out.runs, valueRun{v: run.v, start: len(out.Rows)})
					first = false
				}
				out.Rows = append(out.Rows, n)
			}
		}
	}
	return out
}

// without is o without the rows at places del (ascending), in o's
// arrays: the rows between moved whole, each run's start moved back by
// the rows cut before it, a run cut whole dropped.
func (o Order) without(del []int) Order {
	if len(del) == 0 {
		return o
	}
	w := del[0]
	for x, d := range del {
		end := len(o.Rows)
		if x+1 < len(del) {
			end = del[x+1]
		}
		w += copy(o.Rows[w:], o.Rows[d+1:end])
	}
	out := Order{Rows: o.Rows[:w], runs: o.runs[:0], byValue: o.byValue}
	x := 0 // the places cut before the run
	for r, run := range o.runs {
		end := o.runEnd(r) // read before out's append can reach runs[r+1]: it writes at r at most
		for x < len(del) && del[x] < run.start {
			x++
		}
		y := x
		for y < len(del) && del[y] < end {
			y++
		}
		if end-run.start > y-x {
			out.runs = append(out.runs, valueRun{v: run.v, start: run.start - x})
		}
	}
	return out
}

// place is where, among o's rows before hi, the queue at index n with
// sort value v goes, found on the runs and the rows' indexes alone.
func (o *Order) place(n int, v int64, reverse bool, hi int) int {
	dir := 1
	if reverse {
		dir = -1
	}
	r, found := slices.BinarySearchFunc(o.runs, v, func(run valueRun, v int64) int { return dir * cmp.Compare(run.v, v) })
	if r == len(o.runs) {
		return hi
	}
	lo := o.runs[r].start
	if !found || lo >= hi {
		return min(lo, hi)
	}
	return lo + searchIndex(o.Rows[lo:min(o.runEnd(r), hi)], n, dir)
}

// searchIndex is where index n goes among rows, which ascend (dir 1) or
// descend (dir -1): the first row not before it. A run's rows are the
// queues of one value, spread over the names about evenly, so a few
// guesses by interpolation bring a million rows down to a handful before
// the binary search: a search of a long run was ~20 cache misses.
func searchIndex(rows []int, n, dir int) int {
	key := func(i int) int { return dir * rows[i] }
	x, lo, hi := dir*n, 0, len(rows) // rows before lo are before n, from hi on not
	for guesses := 0; guesses < 4 && hi-lo > 32; guesses++ {
		a, b := key(lo), key(hi-1)
		if a >= x {
			return lo
		}
		if b < x {
			return hi
		}
		// a < x <= b: the answer is in (lo, hi-1]
		g := lo + int(int64(x-a)*int64(hi-1-lo)/int64(b-a))
		if key(g) < x {
			lo = g + 1
		} else {
			hi = g
		}
	}
	at, _ := slices.BinarySearchFunc(rows[lo:hi], x, func(row, x int) int { return cmp.Compare(dir*row, x) })
	return lo + at
}

// mergedRuns is the runs once the rows in (sorted, of values vals) are
// put in o's rows, in[x] before o's row ats[x] (kept's places, ascending):
// in[x] is then at ats[x]+x, a row p of o at p and the count of ats at
// or before it.
func (o *Order) mergedRuns(vals []int64, ats []int) []valueRun {
	out := make([]valueRun, 0, len(o.runs)+len(vals))
	add := func(v int64, at int) {
		if len(out) == 0 || out[len(out)-1].v != v {
			out = append(out, valueRun{v: v, start: at})
		}
	}
	r, x, before := 0, 0, 0
	for r < len(o.runs) || x < len(vals) {
		kp := -1
		if r < len(o.runs) {
			for before < len(ats) && ats[before] <= o.runs[r].start {
				before++
			}
			kp = o.runs[r].start + before
		}
		if x == len(vals) || (kp >= 0 && kp < ats[x]+x) {
			add(o.runs[r].v, kp)
			r++
		} else {
			add(vals[x], ats[x]+x)
			x++
		}
	}
	return out
}
