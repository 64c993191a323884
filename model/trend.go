package model

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Trend is what a series' past says now. EchoMQ keeps no counters of jobs
// enqueued or finished, so every rate here is a net flow (what came in less
// what went out), never throughput.
type Trend struct {
	// PendingNet and ActiveNet are the net change per second over the last
	// minute (the slope of a least-squares line through the polls, or what
	// there is of them, at least TrendMin); ok only then.
	PendingNet, ActiveNet float64
	NetOK                 bool
	Direction             Direction
	// EmptyIn is when pending reaches zero at the rate of the last five
	// minutes (or what there is of them), where pending is falling; 0
	// when it is not falling or already empty. RateOver is that window.
	EmptyIn, RateOver time.Duration
	// SinceExpiredZero: how long the expired count has been above zero (0
	// while it is zero); AtLeast when it has never been seen at zero.
	SinceExpiredZero time.Duration
	AtLeast          bool
}

// Direction words a net change.
type Direction int

// The directions; Unknown until there is TrendMin of past.
const (
	Unknown Direction = iota
	Steady
	Growing
	Shrinking
)

func (d Direction) String() string {
	return [...]string{"–", "steady", "growing", "shrinking"}[d]
}

// TrendMin is the least past a net rate is computed from.
const TrendMin = 10 * time.Second

// Trend derives a series' figures at the latest poll.
func (c *Clock) Trend(past Past) Trend {
	var t Trend
	if !past.Known() {
		return t
	}
	p := c.view(past)
	f := c.fine(&p)
	var r2 float64
	t.PendingNet, r2, t.NetOK = c.netRate(&f, MPending, time.Minute)
	t.ActiveNet, _, _ = c.netRate(&f, MActive, time.Minute)
	if t.NetOK {
		t.Direction = direction(t.PendingNet*60, r2, mean(&f, MPending))
	}
	now := f[FineN-1].V[MPending]
	if rate, over, ok := c.longRate(&p, &f); ok && now != Gap {
		t.RateOver = over
		// no drain estimate while the last minute rises: "pending +0.1/s
		// net · empty in ~15s" contradicts itself
		if rate < 0 && now > 0 && !(t.NetOK && t.PendingNet > 0) {
			t.EmptyIn = time.Duration(float64(now) / -rate * float64(time.Second))
		}
	}
	switch exp := f[FineN-1].V[MExpired]; {
	case exp == Gap || exp == 0:
	case p.lastZero < 0:
		t.SinceExpiredZero, t.AtLeast = time.Duration(c.nowMs-p.firstAt)*time.Millisecond, true
	default:
		t.SinceExpiredZero = time.Duration(c.nowMs-p.lastZero) * time.Millisecond
	}
	return t
}

// direction: a change over a minute counts when the line fits the samples
// (r² >= 0.6: the trend, not noise around a level, explains them) and it
// is at least 1.5 jobs and 10% of the series' mean, so a slow, steady
// growth shows and a level that jitters stays steady.
func direction(perMinute, r2, mean float64) Direction {
	if r2 < 0.6 || math.Abs(perMinute) < max(1.5, 0.1*mean) {
		return Steady
	}
	if perMinute > 0 {
		return Growing
	}
	return Shrinking
}

// netRate is the slope of a least-squares line through the fine samples
// of the last window, per second (gaps skipped), and its r²; ok when they
// span TrendMin at least.
func (c *Clock) netRate(f *[FineN]Sample, m int, window time.Duration) (slope, r2 float64, ok bool) {
	var n, sx, sy, sxx, sxy, syy float64
	var first, last int64
	for _, x := range f { // oldest first
		at, v := x.AtMs, x.V[m]
		if at == 0 || v == Gap || c.nowMs-at > window.Milliseconds() {
			continue
		}
		if n == 0 {
			first = at
		}
		last = at
		x, y := float64(at-c.nowMs)/1000, float64(v)
		n++
		sx, sy, sxx, sxy, syy = sx+x, sy+y, sxx+x*x, sxy+x*y, syy+y*y
	}
	if n < 2 || time.Duration(last-first)*time.Millisecond < TrendMin {
		return 0, 0, false
	}
	vx, vy, cxy := sxx-sx*sx/n, syy-sy*sy/n, sxy-sx*sy/n
	if vx == 0 {
		return 0, 0, false
	}
	slope = cxy / vx
	if vy == 0 {
		return slope, 0, true // a flat line: no trend to explain
	}
	return slope, cxy * cxy / (vx * vy), true
}

// mean is the mean of a metric over the fine samples.
func mean(f *[FineN]Sample, m int) float64 {
	var sum, n float64
	for _, x := range f {
		if v := x.V[m]; x.AtMs != 0 && v != Gap {
			sum += float64(v)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// longBuckets is how many coarse buckets back the long rate reaches.
const longBuckets = 5

// TrendSettles is how long after a series' last change its trend keeps
// moving with no new value: the long rate's buckets and the minute of the
// net rate.
const TrendSettles = longBuckets*CoarseStep + time.Minute

// longRate is pending's net rate over the last five minutes: from the
// coarse bucket about five minutes back (its last value) to now, or, with
// less past, over the fine samples.
func (c *Clock) longRate(p *view, f *[FineN]Sample) (float64, time.Duration, bool) {
	now := f[FineN-1].V[MPending]
	for k := longBuckets; k >= 1; k-- {
		b := CoarseN - 1 - k
		if c.coarse[b] == 0 || now == Gap {
			continue
		}
		v := c.bucket(p, b).Pending
		if v == Gap {
			continue
		}
		// the bucket's last value is at most a step old at its end
		at := c.coarse[b] + CoarseStep.Milliseconds()
		over := time.Duration(c.nowMs-at) * time.Millisecond
		if over >= TrendMin {
			return float64(now-v) / over.Seconds(), over, true
		}
	}
	r, _, ok := c.netRate(f, MPending, time.Minute)
	if !ok {
		return 0, 0, false
	}
	var first int64
	for _, x := range f {
		if x.AtMs != 0 && x.V[MPending] != Gap && c.nowMs-x.AtMs <= time.Minute.Milliseconds() {
			first = x.AtMs
			break
		}
	}
	return r, time.Duration(c.nowMs-first) * time.Millisecond, true
}

// Words says a trend in plain words: "growing, pending +2.1/s net · empty
// in ~4m at the last 5m's rate".
func (t Trend) Words() string { return strings.Join(t.Clauses(), " · ") }

// Clauses are Words' parts, for a pane that puts them on lines of their
// own where one line is too narrow.
func (t Trend) Clauses() []string {
	if !t.NetOK {
		return []string{"trend: not enough past yet"}
	}
	out := []string{fmt.Sprintf("%s, pending %+.1f/s net", t.Direction, t.PendingNet)}
	if t.EmptyIn > 0 {
		out = append(out, fmt.Sprintf("empty in ~%s at the last %s's rate", Ago(roundDur(t.EmptyIn)), Ago(roundDur(t.RateOver))))
	}
	return out
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute)
	case d >= time.Minute:
		return d.Round(10 * time.Second)
	}
	return d.Round(time.Second)
}
