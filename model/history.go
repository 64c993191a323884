package model

import (
	"slices"
	"sort"
	"time"
)

// History keeps, from the polls alone (nothing is written to a server), a
// short and a long past of every series it is given: per queue, and for
// the cluster and each node. It keeps each series' changes, not its value
// at every poll: a series holds its value from the poll it was Put at until
// the next Put or Gap, so a series that does not change costs one record
// for the whole hour and a poll costs nothing for the series it does not
// touch (issue 24: memory and work grow with what changes, not with how
// many series exist). Read back, a series is what it was at every poll:
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
	ids   map[string]int
	names []string
	s     []series
	// the polls: the time of each of the last FineN, and the start and the
	// first poll of each of the last CoarseN buckets (0 when unused)
	fineAt      [FineN]int64
	fineHead    int // the slot of the latest poll
	coarseAt    [CoarseN]int64
	coarseFirst [CoarseN]int64
	coarseHd    int
	prevMs      int64 // the poll before the latest
	nowMs       int64
}

// rec is a series' values from the poll at At on.
type rec struct {
	at int64
	v  [Metrics]int32
}

// series is one series' changes, oldest first, and what its trend needs
// beyond them.
type series struct {
	log      []rec
	firstAt  int64 // ms it was first put
	lastZero int64 // ms of the last poll its expired count was zero, -1 never
}

// The metrics of a series.
const (
	MPending = iota
	MActive
	MExpired
	MScheduled
	// MOldest is when the oldest pending job was enqueued, in seconds on
	// the server's clock (0 when nothing is pending): unlike its age, it
	// does not change while nothing does.
	MOldest
	Metrics
)

// The sizes of the two pasts.
const (
	FineN      = 60
	CoarseN    = 60
	CoarseStep = time.Minute
)

// Gap marks a poll at which a series had no value.
const Gap int32 = -1

var gapValues = [Metrics]int32{Gap, Gap, Gap, Gap, Gap}

// NewHistory makes an empty history.
func NewHistory() *History {
	return &History{ids: map[string]int{}, fineHead: FineN - 1, coarseHd: CoarseN - 1}
}

// Begin opens the poll taken at ms: the next fine slot, and a new coarse
// bucket when ms enters one. Every series keeps its value there until Put
// or Gap says otherwise.
func (h *History) Begin(ms int64) {
	h.prevMs, h.nowMs = h.nowMs, ms
	h.fineHead = (h.fineHead + 1) % FineN
	h.fineAt[h.fineHead] = ms
	if start := bucketOf(ms); h.coarseAt[h.coarseHd] != start {
		h.coarseHd = (h.coarseHd + 1) % CoarseN
		h.coarseAt[h.coarseHd], h.coarseFirst[h.coarseHd] = start, ms
	}
}

func bucketOf(ms int64) int64 { return ms - ms%CoarseStep.Milliseconds() }

// Put records a series' values from the poll Begin opened on.
func (h *History) Put(name string, v [Metrics]int64) {
	id, ok := h.ids[name]
	if !ok {
		id = h.add(name)
	}
	var c [Metrics]int32
	for m, x := range v {
		c[m] = clamp32(x)
	}
	h.set(id, c)
	if c[MExpired] == 0 {
		h.s[id].lastZero = h.nowMs
	}
}

// Gap records that a series has no value from the poll Begin opened on (its
// node did not answer); a name never put stays unknown.
func (h *History) Gap(name string) {
	if id, ok := h.ids[name]; ok {
		h.set(id, gapValues)
	}
}

// set appends a change; a value equal to the last one is no change.
func (h *History) set(id int, c [Metrics]int32) {
	s := &h.s[id]
	if n := len(s.log); n > 0 {
		last := s.log[n-1]
		switch {
		case last.v == c:
			return
		case last.at == h.nowMs: // put twice in one poll: the later stands
			s.log[n-1].v = c
			return
		}
		if last.v[MExpired] == 0 && h.prevMs > 0 {
			s.lastZero = max(s.lastZero, h.prevMs) // it held until the poll before
		}
		if n == cap(s.log) {
			s.log = h.compact(s.log)
		}
	}
	s.log = append(s.log, rec{at: h.nowMs, v: c})
}

// compact drops the changes no read can reach any more (before the oldest
// bucket, but the one in effect at its start) and reduces those older than
// the fine past to what their bucket's figures need: per bucket its first
// and final change, pending's lowest and highest, the last with a value.
// It returns a new array: a snapshot's view of the old one stays whole.
func (h *History) compact(log []rec) []rec {
	horizon, fineStart := h.oldest(h.coarseAt[:], h.coarseHd, CoarseN), h.oldest(h.fineAt[:], h.fineHead, FineN)
	i := max(0, sort.Search(len(log), func(i int) bool { return log[i].at > horizon })-1)
	var out []rec
	for i < len(log) && log[i].at < fineStart {
		j, b := i, bucketOf(log[i].at)
		for j < len(log) && log[j].at < fineStart && bucketOf(log[j].at) == b {
			j++
		}
		out = reduce(out, log[i:j])
		i = j
	}
	n := len(out) + len(log) - i
	return append(append(make([]rec, 0, max(4, 2*n)), out...), log[i:]...)
}

// oldest is the oldest time a ring holds (0 when none).
func (h *History) oldest(ring []int64, head, n int) int64 {
	for k := 1; k <= n; k++ {
		if at := ring[(head+k)%n]; at != 0 {
			return at
		}
	}
	return 0
}

// reduce appends the changes of one bucket that its figures need.
func reduce(out, g []rec) []rec {
	keep := []int{0, len(g) - 1}
	lo, hi, last := -1, -1, -1
	for k, r := range g {
		p := r.v[MPending]
		if p == Gap {
			continue
		}
		if lo < 0 || p < g[lo].v[MPending] {
			lo = k
		}
		if hi < 0 || p > g[hi].v[MPending] {
			hi = k
		}
		last = k
	}
	if last >= 0 {
		keep = append(keep, lo, hi, last)
	}
	slices.Sort(keep)
	for _, k := range slices.Compact(keep) {
		out = append(out, g[k])
	}
	return out
}

// Reserve makes room for n series in all, so that adding them grows no
// table a series at a time.
func (h *History) Reserve(n int) {
	more := n - len(h.names)
	if more <= 0 {
		return
	}
	if len(h.ids) == 0 {
		h.ids = make(map[string]int, n)
	}
	h.names = slices.Grow(h.names, more)
	h.s = slices.Grow(h.s, more)
}

func (h *History) add(name string) int {
	id := len(h.names)
	h.ids[name] = id
	h.names = append(h.names, name)
	h.s = append(h.s, series{firstAt: h.nowMs, lastZero: -1})
	return id
}

func clamp32(x int64) int32 {
	return int32(min(max(x, 0), 1<<31-1))
}

// at is a series' values at time ms: the last change at or before it, Gap
// before its first.
func (s *series) at(ms int64) [Metrics]int32 {
	i := sort.Search(len(s.log), func(i int) bool { return s.log[i].at > ms })
	if i == 0 {
		return gapValues
	}
	return s.log[i-1].v
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

// fine is a series' values at the last FineN polls, oldest first; a slot
// with AtMs 0 is no poll.
func (h *History) fine(id int) (out [FineN]Sample) {
	s := &h.s[id]
	i := -1 // the change in effect at the poll, walked forward
	for k := 1; k <= FineN; k++ {
		slot := (h.fineHead + k) % FineN
		at := h.fineAt[slot]
		out[k-1].AtMs = at
		if at == 0 {
			continue
		}
		if i < 0 {
			i = sort.Search(len(s.log), func(i int) bool { return s.log[i].at > at }) - 1
		}
		for i+1 < len(s.log) && s.log[i+1].at <= at {
			i++
		}
		out[k-1].V = gapValues
		if i >= 0 && s.log[i].at <= at {
			out[k-1].V = s.log[i].v
		}
	}
	return out
}

// bucket is a series over coarse bucket b: what it held at the bucket's
// first poll, then each change in it.
func (h *History) bucket(id, b int) Bucket {
	s := &h.s[id]
	start, first := h.coarseAt[b], h.coarseFirst[b]
	out := Bucket{AtMs: start, PendMin: Gap, PendMax: Gap, Pending: Gap, Active: Gap, Expired: Gap, OldestS: Gap}
	apply := func(v [Metrics]int32) {
		p := v[MPending]
		if p == Gap {
			return
		}
		if out.PendMin == Gap || p < out.PendMin {
			out.PendMin = p
		}
		out.PendMax = max(out.PendMax, p)
		out.Pending, out.Active, out.Expired, out.OldestS = p, v[MActive], v[MExpired], v[MOldest]
	}
	apply(s.at(first))
	end := start + CoarseStep.Milliseconds()
	for i := sort.Search(len(s.log), func(i int) bool { return s.log[i].at > first }); i < len(s.log) && s.log[i].at < end; i++ {
		apply(s.log[i].v)
	}
	return out
}

// Series copies a series' past out, for a screen; ok is false for a name
// never put.
func (h *History) Series(name string) (Series, bool) {
	id, ok := h.ids[name]
	if !ok {
		return Series{}, false
	}
	var s Series
	for _, x := range h.fine(id) {
		if x.AtMs != 0 {
			s.Fine = append(s.Fine, x)
		}
	}
	for k := 1; k <= CoarseN; k++ {
		if b := (h.coarseHd + k) % CoarseN; h.coarseAt[b] != 0 {
			s.Coarse = append(s.Coarse, h.bucket(id, b))
		}
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
	f := h.fine(id)
	out := make([]int32, n)
	for k := range out {
		x := f[FineN-n+k]
		out[k] = x.V[m]
		if x.AtMs == 0 {
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
	f := h.fine(id)
	out := make([]int32, n)
	per := FineN / n
	for b := range out {
		out[b] = Gap
		for _, x := range f[b*per : (b+1)*per] {
			if x.AtMs != 0 && x.V[m] > out[b] {
				out[b] = x.V[m]
			}
		}
	}
	return out
}
