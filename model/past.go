package model

import "sort"

// The read side of the history: a series' figures from its Past and the
// Clock of the polls, for a screen, a JSON line or a test.

// ms is the time of the view's change i.
func (p *view) ms(i int) int64 { return p.base + int64(p.log[i].at) }

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
