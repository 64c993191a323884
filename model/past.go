package model

import "sort"

// The read side of the history: a series' figures from its Past and the
// Clock of the polls, for a screen, a JSON line or a test.

// Past is one series' changes as a poll left them: it names them (the
// series, its span in the history's logs, how many changes it had), and
// later polls never change what it names (logstore.go), so a snapshot can
// carry it to a screen, which derives the figures it shows (Clock.Trend,
// Clock.Spark, Clock.Series, with the Clock of the same snapshot) for the
// rows it draws, and no poll derives them for every queue. No pointer: a
// million queues' pasts are not the collector's to look into. The zero
// Past is a series never put: no past.
type Past struct {
	id       uint32 // the series' place in its history, plus one (0: never put)
	sp       span
	n        uint32 // the changes it had; gapBit: the last is a gap
	lastAt   int64  // the last change's time
	firstAt  int64
	lastZero int64
}

// gapBit is set in Past.n when the series' last change is a gap.
const gapBit = 1 << 31

// Known reports whether the series was ever put.
func (p Past) Known() bool { return p.id != 0 }

// LastChangeMs is the time of the series' latest change (0 for no past).
func (p Past) LastChangeMs() int64 { return p.lastAt }

// Gapped reports whether the series has no value now: never put, or a
// gap last.
func (p Past) Gapped() bool { return p.id == 0 || p.n&gapBit != 0 }

// Holds reports whether the series' latest values are v (as Put takes
// them), so that putting them would be no change; p is one of h's.
func (h *History) Holds(p Past, v [Metrics]int64) bool {
	id := int(p.id) - 1
	if id < 0 || id >= len(h.s) || h.s[id].n == 0 {
		return false
	}
	s := &h.s[id]
	log, _ := h.logs.recs(s.sp, s.n)
	last := log[s.n-1].v
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
	p := Past{id: uint32(id) + 1, sp: s.sp, n: s.n, firstAt: s.firstAt, lastZero: s.lastZero}
	if s.n > 0 {
		log, base := h.logs.recs(s.sp, s.n)
		last := log[s.n-1]
		p.lastAt = last.ms(base)
		if last.v == gapValues {
			p.n |= gapBit
		}
	}
	return p
}

// view is a Past's changes, read from a Clock's chunks, their times
// counted from base.
type view struct {
	log      []rec
	base     int64
	firstAt  int64
	lastZero int64
}

// view is p's changes as c's chunks hold them (none for a Past c's
// history did not give, or a span it no longer has).
func (c *Clock) view(p Past) view {
	v := view{firstAt: p.firstAt, lastZero: p.lastZero}
	n := p.n &^ gapBit
	if p.id == 0 || int(p.sp.chunk) >= len(c.logs) {
		return v
	}
	ch := c.logs[p.sp.chunk]
	if int(p.sp.slot) >= len(ch.off) {
		return v
	}
	o := uint64(ch.off[p.sp.slot])
	if o+uint64(n) > uint64(len(ch.recs)) {
		return v
	}
	v.log, v.base = ch.recs[o:o+uint64(n):o+uint64(n)], ch.base
	return v
}

// ms is the time of the view's change i.
func (p *view) ms(i int) int64 { return p.log[i].ms(p.base) }

// at is the series' values at time ms: the last change at or before it,
// Gap before its first.
func (p *view) at(ms int64) [Metrics]int32 {
	i := sort.Search(len(p.log), func(i int) bool { return p.ms(i) > ms })
	if i == 0 {
		return gapValues
	}
	return p.log[i-1].v
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

// fine is the series' values at the last FineN polls, oldest first; a
// sample with AtMs 0 is no poll.
func (c *Clock) fine(p *view) (out [FineN]Sample) {
	i := -1 // the change in effect at the poll, walked forward
	for k, at := range c.fineAt {
		out[k].AtMs = at
		if at == 0 {
			continue
		}
		if i < 0 {
			i = sort.Search(len(p.log), func(i int) bool { return p.ms(i) > at }) - 1
		}
		for i+1 < len(p.log) && p.ms(i+1) <= at {
			i++
		}
		out[k].V = gapValues
		if i >= 0 && p.ms(i) <= at {
			out[k].V = p.log[i].v
		}
	}
	return out
}

// bucket is the series over coarse bucket b (oldest first): what it held
// at the bucket's first poll, then each change in it.
func (c *Clock) bucket(p *view, b int) Bucket {
	start, first := c.coarse[b], c.coarseFirst[b]
	out := Bucket{AtMs: start, PendMin: Gap, PendMax: Gap, Pending: Gap, Active: Gap, Expired: Gap, OldestS: Gap}
	apply := func(v [Metrics]int32) {
		pv := v[MPending]
		if pv == Gap {
			return
		}
		if out.PendMin == Gap || pv < out.PendMin {
			out.PendMin = pv
		}
		out.PendMax = max(out.PendMax, pv)
		out.Pending, out.Active, out.Expired, out.OldestS = pv, v[MActive], v[MExpired], v[MOldest]
	}
	apply(p.at(first))
	end := start + CoarseStep.Milliseconds()
	for i := sort.Search(len(p.log), func(i int) bool { return p.ms(i) > first }); i < len(p.log) && p.ms(i) < end; i++ {
		apply(p.log[i].v)
	}
	return out
}

// Series is a series' whole past, for a screen.
func (c *Clock) Series(past Past) Series {
	var s Series
	p := c.view(past)
	for _, x := range c.fine(&p) {
		if x.AtMs != 0 {
			s.Fine = append(s.Fine, x)
		}
	}
	for b, at := range c.coarse {
		if at != 0 {
			s.Coarse = append(s.Coarse, c.bucket(&p, b))
		}
	}
	return s
}

// Spark is pending over the fine past in SparkBuckets buckets, each its
// highest value, Gap where there is none, oldest first; nil for no past.
func (c *Clock) Spark(p Past) []int32 {
	if !p.Known() {
		return nil
	}
	return c.buckets(p, MPending, SparkBuckets)
}

func (c *Clock) spark(past Past, m, n int) []int32 {
	n = min(n, FineN)
	p := c.view(past)
	f := c.fine(&p)
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

// SparkBuckets is how many buckets a queue's Spark has.
const SparkBuckets = 12

func (c *Clock) buckets(past Past, m, n int) []int32 {
	p := c.view(past)
	f := c.fine(&p)
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
