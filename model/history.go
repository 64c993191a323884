package model

import (
	"math"
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
	logs        logStore // the series' logs (logstore.go)
	scratch     []rec    // compact's output, kept from call to call
}

// rec is a series' values from the poll at at on: at is ms after its
// chunk's base (logChunk.base), so that a record is 24 bytes, not 32 (an
// hour at a million queues holds six million of them).
type rec struct {
	at int32
	v  [Metrics]int32
}

// ms is r's time, in a chunk whose records count from base.
func (r rec) ms(base int64) int64 { return base + int64(r.at) }

// series is one series' changes, oldest first (n of them, at sp in the
// logs; none yet when n is 0), and what its trend needs beyond them. No
// pointer: a million of them are not the collector's to look into.
type series struct {
	sp       span
	n        uint32
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
	return &History{ids: NewNameTable(), fineHead: FineN - 1, coarseHd: CoarseN - 1, logs: newLogStore()}
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
	// chunks mostly moved out of are packed, a few a poll: what the
	// logs hold stays within about twice what is live; and a chunk whose
	// base nears what 31 bits of ms hold is copied with a new one
	h.logs.pack(packBudget, ms)
}

// packBudget is the most live records a poll's Begin copies (4 MB).
const packBudget = 1 << 17

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
	if s.n > 0 {
		log, base := h.logs.recs(s.sp, s.n)
		last := log[s.n-1]
		switch {
		case last.v == c:
			return
		case last.ms(base) == h.nowMs: // put twice in one poll: the later stands (no view has it yet)
			log[s.n-1].v = c
			return
		}
		if last.v[MExpired] == 0 && h.prevMs > 0 {
			s.lastZero = max(s.lastZero, h.prevMs) // it held until the poll before
		}
		if s.n == h.logs.room(s.sp) {
			h.move(s, h.compact(log, base), base)
		}
	} else {
		// a series' first record: a span of one, the next change moves
		// it to a span of its own size (most series of a million queues
		// never change after it)
		s.sp = h.logs.alloc(1, h.nowMs)
	}
	log, base := h.logs.recs(s.sp, s.n+1)
	log[s.n] = rec{at: relTo(base, h.nowMs), v: c}
	s.n++
}

// move puts s's log, now log (compacted, counted from base), in a new
// span with room for as many changes again, counted from its chunk's
// base, and lets the old one go (its records stay as they were for the
// views that name it).
func (h *History) move(s *series, log []rec, base int64) {
	n := uint32(len(log))
	sp := h.logs.alloc(max(4, 2*n), h.nowMs)
	to, nb := h.logs.recs(sp, n)
	copy(to, log)
	shift(to, base, nb)
	h.logs.release(s.sp)
	s.sp, s.n = sp, n
}

// relTo is time ms as a record of a chunk with base counts it; a time
// more than 31 bits of ms before the base is the earliest they hold (it is
// before the oldest bucket either way, read only as the value in effect).
func relTo(base, ms int64) int32 { return int32(max(ms-base, math.MinInt32)) }

// shift counts recs, counted from base, from nb instead.
func shift(recs []rec, base, nb int64) {
	if base == nb {
		return
	}
	for k := range recs {
		recs[k].at = relTo(nb, recs[k].ms(base))
	}
}

// compact drops the changes no read can reach any more (before the oldest
// bucket, but the one in effect at its start) and reduces those older than
// the fine past to what their bucket's figures need: per bucket its first
// and final change, pending's lowest and highest, the last with a value.
// log's times count from base. The result is h's scratch, valid until the
// next call, counted from base too.
func (h *History) compact(log []rec, base int64) []rec {
	horizon, fineStart := h.oldest(h.coarseAt[:], h.coarseHd, CoarseN), h.oldest(h.fineAt[:], h.fineHead, FineN)
	i := max(0, sort.Search(len(log), func(i int) bool { return log[i].ms(base) > horizon })-1)
	out := h.scratch[:0]
	for i < len(log) && log[i].ms(base) < fineStart {
		j, b := i, bucketOf(log[i].ms(base))
		for j < len(log) && log[j].ms(base) < fineStart && bucketOf(log[j].ms(base)) == b {
			j++
		}
		out = reduce(out, log[i:j])
		i = j
	}
	out = append(out, log[i:]...)
	h.scratch = out
	return out
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

// Clock is the polls a history has seen, oldest first (0 where none yet):
// the last FineN, and the start and first poll of the last CoarseN buckets.
type Clock struct {
	fineAt              [FineN]int64
	coarse, coarseFirst [CoarseN]int64
	nowMs               int64
	// logs are the history's chunks as they were: what the Pasts of the
	// same poll name (a later poll's Clock reads them too, as a carried
	// queue's Past names a span that stays where it was)
	logs []chunkView
}

// Clock is the polls so far, for a snapshot.
func (h *History) Clock() Clock {
	c := Clock{nowMs: h.nowMs, logs: h.logs.view()}
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
