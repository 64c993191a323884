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
	ids *NameTable // each series' id: its place in s
	s   []series
	// the polls: the time of each of the last FineN, and the start and the
	// first poll of each of the last CoarseN buckets (0 when unused)
	fineAt      [FineN]int64
	fineHead    int // the slot of the latest poll
	coarseAt    [CoarseN]int64
	coarseFirst [CoarseN]int64
	coarseHd    int
	prevMs      int64 // the poll before the latest
	nowMs       int64
	// firsts is what is left of the slab the series' first records are
	// taken from (first)
	firsts []rec
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
	return &History{ids: NewNameTable(), fineHead: FineN - 1, coarseHd: CoarseN - 1}
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

// Put records a series' values from the poll Begin opened on, and is its
// Past then (one look-up of the name, not two).
func (h *History) Put(name string, v [Metrics]int64) Past {
	id, ok := h.ids.ID(name)
	if !ok {
		id = h.add(name)
	}
	return h.put(id, v)
}

func (h *History) put(id int, v [Metrics]int64) Past {
	var c [Metrics]int32
	for m, x := range v {
		c[m] = clamp32(x)
	}
	h.set(id, c)
	if c[MExpired] == 0 {
		h.s[id].lastZero = h.nowMs
	}
	return h.pastOf(id)
}

// Gap records that a series has no value from the poll Begin opened on (its
// node did not answer), and is its Past then; a name never put stays
// unknown.
func (h *History) Gap(name string) Past {
	id, ok := h.ids.ID(name)
	if !ok {
		return Past{}
	}
	h.set(id, gapValues)
	return h.pastOf(id)
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
	} else if cap(s.log) == 0 {
		s.log = h.first()
	}
	s.log = append(s.log, rec{at: h.nowMs, v: c})
}

// first is room for a series' first record, taken from a slab of them.
// Most series of a million queues never change after it: each its own
// 32-byte object, put in the order the polls read them, then pointed to
// from queues in name order, was a cache miss to mark at every
// collection, twice (the series and the queue's Past); a pointer into a
// slab marks the slab, which is marked already. Its cap is 1, so the next
// record goes to an array of the series' own (compact) and never into its
// neighbour's; a slab lives while one of its records does, which holds
// at most what the records took one by one.
func (h *History) first() []rec {
	if len(h.firsts) == 0 {
		h.firsts = make([]rec, min(firstsSlab, max(16, len(h.s)/4)))
	}
	r := h.firsts[:0:1]
	h.firsts = h.firsts[1:]
	return r
}

// firstsSlab is the most records a slab of first records holds (128 KB).
const firstsSlab = 4096

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
	more := n - len(h.s)
	if more <= 0 {
		return
	}
	h.ids.Reserve(n)
	h.s = slices.Grow(h.s, more)
}

func (h *History) add(name string) int {
	id := h.ids.Add(name)
	h.s = append(h.s, series{firstAt: h.nowMs, lastZero: -1})
	return id
}

func clamp32(x int64) int32 {
	return int32(min(max(x, 0), 1<<31-1))
}

// Past is one series' changes as a poll left them: a view that later polls
// never change (the history appends past its end, and compacts into a new
// array), so a snapshot can carry it to a screen, which derives the
// figures it shows (Clock.Trend, Clock.Spark, Clock.Series) for the rows it
// draws, and no poll derives them for every queue. The zero Past is a
// series never put: no past.
type Past struct {
	log      []rec
	firstAt  int64
	lastZero int64
}

// Known reports whether the series was ever put.
func (p Past) Known() bool { return p.log != nil }

// LastChangeMs is the time of the series' latest change (0 for no past).
func (p Past) LastChangeMs() int64 {
	if len(p.log) == 0 {
		return 0
	}
	return p.log[len(p.log)-1].at
}

// Gapped reports whether the series has no value now: never put, or a
// gap last.
func (p Past) Gapped() bool {
	return len(p.log) == 0 || p.log[len(p.log)-1].v == gapValues
}

// Holds reports whether the series' latest values are v (as Put takes
// them), so that putting them would be no change.
func (p Past) Holds(v [Metrics]int64) bool {
	if len(p.log) == 0 {
		return false
	}
	last := p.log[len(p.log)-1].v
	for m, x := range v {
		if clamp32(x) != last[m] {
			return false
		}
	}
	return true
}

// Past is the named series' past as of now; the zero Past for a name never
// put.
func (h *History) Past(name string) Past {
	id, ok := h.ids.ID(name)
	if !ok {
		return Past{}
	}
	return h.pastOf(id)
}

func (h *History) pastOf(id int) Past {
	s := &h.s[id]
	return Past{log: s.log[:len(s.log):len(s.log)], firstAt: s.firstAt, lastZero: s.lastZero}
}

// Clock is the polls a history has seen, oldest first (0 where none yet):
// the last FineN, and the start and first poll of the last CoarseN buckets.
type Clock struct {
	fineAt              [FineN]int64
	coarse, coarseFirst [CoarseN]int64
	nowMs               int64
}

// Clock is the polls so far, for a snapshot.
func (h *History) Clock() Clock {
	c := Clock{nowMs: h.nowMs}
	for k := 1; k <= FineN; k++ {
		c.fineAt[k-1] = h.fineAt[(h.fineHead+k)%FineN]
	}
	for k := 1; k <= CoarseN; k++ {
		b := (h.coarseHd + k) % CoarseN
		c.coarse[k-1], c.coarseFirst[k-1] = h.coarseAt[b], h.coarseFirst[b]
	}
	return c
}

// FineStart is the time of the oldest poll of the fine past (0: none).
func (c *Clock) FineStart() int64 {
	for _, at := range c.fineAt {
		if at != 0 {
			return at
		}
	}
	return 0
}

// NowMs is the latest poll's time.
func (c *Clock) NowMs() int64 { return c.nowMs }

// Series is the named series' past, for a screen; ok is false for a name
// never put.
func (h *History) Series(name string) (Series, bool) {
	p := h.Past(name)
	if !p.Known() {
		return Series{}, false
	}
	c := h.Clock()
	return c.Series(p), true
}

// Spark is the last n fine values of metric m of a series, oldest first,
// Gap where it had none; nil for a name never put.
func (h *History) Spark(name string, m, n int) []int32 {
	p := h.Past(name)
	if !p.Known() {
		return nil
	}
	c := h.Clock()
	return c.spark(p, m, n)
}

// Buckets is metric m of a series over the fine past in n buckets, each its
// highest value (Gap when it has none), oldest first; nil for a name never
// put.
func (h *History) Buckets(name string, m, n int) []int32 {
	p := h.Past(name)
	if !p.Known() {
		return nil
	}
	c := h.Clock()
	return c.buckets(p, m, n)
}

// Trend derives a series' figures at the latest poll.
func (h *History) Trend(name string) Trend {
	c := h.Clock()
	return c.Trend(h.Past(name))
}

// Len is how many series the history holds.
func (h *History) Len() int { return len(h.s) }
