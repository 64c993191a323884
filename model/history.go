package model

import (
	"slices"
	"time"
)

// History keeps, from the polls alone (nothing is written to a server), a
// short and a long past of every series it is given: per queue, and for
// the cluster and each node. It is columnar: a metric's values of every
// series sit in one slab, so a poll of 10,000 queues is a few writes per
// queue and the memory is fixed by the number of series, not the polls.
//
//   - fine: the value at each of the last FineN polls (one a second: a
//     minute);
//   - coarse: one bucket a CoarseStep (a minute) for the last CoarseN (an
//     hour): pending as min, max and last, the others as last.
//
// A series with no value at a poll (its node did not answer, it was
// stale, it did not exist yet) has a gap there (Gap), never a zero. Values
// are int32, saturated. History is not safe for concurrent use: one poller
// owns it, and what a screen needs is copied out into the snapshot.
type History struct {
	ids      map[string]int
	names    []string
	fineAt   [FineN]int64 // ms of each fine slot, 0 when unused
	fineHead int          // the slot of the latest poll
	fine     [Metrics][]int32
	coarseAt [CoarseN]int64 // start ms of each bucket, 0 when unused
	coarse   [coarseCols][]int32
	coarseHd int
	lastZero []int64 // ms a series' expired count was last seen zero, -1 never
	firstAt  []int64 // ms a series was first seen
	nowMs    int64
}

// The metrics of a series.
const (
	MPending = iota
	MActive
	MExpired
	MScheduled
	MOldest // the oldest pending job's age, in seconds
	Metrics
)

// The coarse columns: pending's min, max and last; the others' last.
const (
	cPendMin = iota
	cPendMax
	cPendLast
	cActive
	cExpired
	cOldest
	coarseCols
)

// The sizes of the two pasts.
const (
	FineN      = 60
	CoarseN    = 60
	CoarseStep = time.Minute
)

// Gap marks a poll at which a series had no value.
const Gap int32 = -1

// NewHistory makes an empty history.
func NewHistory() *History {
	h := &History{ids: map[string]int{}, fineHead: FineN - 1, coarseHd: CoarseN - 1}
	return h
}

// Begin opens the poll taken at ms: the next fine slot (every series a gap
// there until Put), and a new coarse bucket when ms enters one.
func (h *History) Begin(ms int64) {
	h.nowMs = ms
	h.fineHead = (h.fineHead + 1) % FineN
	h.fineAt[h.fineHead] = ms
	gaps(h.fine[:], h.fineHead, FineN)
	start := ms - ms%CoarseStep.Milliseconds()
	if h.coarseAt[h.coarseHd] != start {
		h.coarseHd = (h.coarseHd + 1) % CoarseN
		h.coarseAt[h.coarseHd] = start
		gaps(h.coarse[:], h.coarseHd, CoarseN)
	}
}

// gaps sets slot of every series (a stride of n) of every column to Gap.
func gaps(cols [][]int32, slot, n int) {
	for _, col := range cols {
		for i := slot; i < len(col); i += n {
			col[i] = Gap
		}
	}
}

// Put records a series' values at the poll Begin opened.
func (h *History) Put(name string, v [Metrics]int64) {
	id, ok := h.ids[name]
	if !ok {
		id = h.add(name)
	}
	for m, x := range v {
		h.fine[m][id*FineN+h.fineHead] = clamp32(x)
	}
	ci := id*CoarseN + h.coarseHd
	p := clamp32(v[MPending])
	if mn := h.coarse[cPendMin][ci]; mn == Gap || p < mn {
		h.coarse[cPendMin][ci] = p
	}
	h.coarse[cPendMax][ci] = max(h.coarse[cPendMax][ci], p)
	h.coarse[cPendLast][ci] = p
	h.coarse[cActive][ci] = clamp32(v[MActive])
	h.coarse[cExpired][ci] = clamp32(v[MExpired])
	h.coarse[cOldest][ci] = clamp32(v[MOldest])
	if v[MExpired] == 0 {
		h.lastZero[id] = h.nowMs
	}
}

// Reserve makes room for n series in all, so that adding them copies no
// slab (a first poll of 100,000 queues grew each slab a queue at a time).
func (h *History) Reserve(n int) {
	more := n - len(h.names)
	if more <= 0 {
		return
	}
	for m := range h.fine {
		h.fine[m] = slices.Grow(h.fine[m], more*FineN)
	}
	for c := range h.coarse {
		h.coarse[c] = slices.Grow(h.coarse[c], more*CoarseN)
	}
	h.names = slices.Grow(h.names, more)
	h.lastZero = slices.Grow(h.lastZero, more)
	h.firstAt = slices.Grow(h.firstAt, more)
}

func (h *History) add(name string) int {
	id := len(h.names)
	h.ids[name] = id
	h.names = append(h.names, name)
	for m := range h.fine {
		h.fine[m] = appendGaps(h.fine[m], FineN)
	}
	for c := range h.coarse {
		h.coarse[c] = appendGaps(h.coarse[c], CoarseN)
	}
	h.lastZero = append(h.lastZero, -1)
	h.firstAt = append(h.firstAt, h.nowMs)
	return id
}

func appendGaps(s []int32, n int) []int32 {
	for i := 0; i < n; i++ {
		s = append(s, Gap)
	}
	return s
}

func clamp32(x int64) int32 {
	return int32(min(max(x, 0), 1<<31-1))
}

// Series is a copy of one series' past, oldest first.
type Series struct {
	Fine   []Sample // the last polls
	Coarse []Bucket // the last hour, a bucket a minute
}

// Sample is a series' values at one poll; Gap where it had none.
type Sample struct {
	AtMs int64
	V    [Metrics]int32
}

// Bucket is a series over one CoarseStep.
type Bucket struct {
	AtMs                      int64
	PendMin, PendMax, Pending int32
	Active, Expired, OldestS  int32
}

// Series copies a series' past out, for a screen; ok is false for a name
// never put.
func (h *History) Series(name string) (Series, bool) {
	id, ok := h.ids[name]
	if !ok {
		return Series{}, false
	}
	var s Series
	for k := 1; k <= FineN; k++ {
		slot := (h.fineHead + k) % FineN
		if h.fineAt[slot] == 0 {
			continue
		}
		x := Sample{AtMs: h.fineAt[slot]}
		for m := range h.fine {
			x.V[m] = h.fine[m][id*FineN+slot]
		}
		s.Fine = append(s.Fine, x)
	}
	for k := 1; k <= CoarseN; k++ {
		b := (h.coarseHd + k) % CoarseN
		if h.coarseAt[b] == 0 {
			continue
		}
		i := id*CoarseN + b
		c := h.coarse
		s.Coarse = append(s.Coarse, Bucket{AtMs: h.coarseAt[b], PendMin: c[cPendMin][i], PendMax: c[cPendMax][i],
			Pending: c[cPendLast][i], Active: c[cActive][i], Expired: c[cExpired][i], OldestS: c[cOldest][i]})
	}
	return s, true
}

// Spark is the last n fine values of metric m of a series, oldest first,
// Gap where it had none; nil for a name never put.
func (h *History) Spark(name string, m, n int) []int32 {
	id, ok := h.ids[name]
	if !ok {
		return nil
	}
	n = min(n, FineN)
	out := make([]int32, n)
	for k := 0; k < n; k++ {
		slot := (h.fineHead - n + 1 + k + FineN) % FineN
		out[k] = h.fine[m][id*FineN+slot]
		if h.fineAt[slot] == 0 {
			out[k] = Gap
		}
	}
	return out
}

// Len is how many series the history holds.
func (h *History) Len() int { return len(h.names) }

// SparkBuckets is how many buckets a queue's Spark has.
const SparkBuckets = 12

// Buckets is metric m of a series over the fine past in n buckets, each its
// highest value (Gap when it has none), oldest first; nil for a name never
// put.
func (h *History) Buckets(name string, m, n int) []int32 {
	id, ok := h.ids[name]
	if !ok {
		return nil
	}
	out := make([]int32, n)
	per := FineN / n
	for b := range out {
		out[b] = Gap
		for k := 0; k < per; k++ {
			slot := (h.fineHead + 1 + b*per + k) % FineN
			if v := h.fine[m][id*FineN+slot]; h.fineAt[slot] != 0 && v > out[b] {
				out[b] = v
			}
		}
	}
	return out
}
