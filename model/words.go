package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Count says n of a thing in words, the noun agreeing with the number and
// the number grouped by thousands: "1 queue", "5,000 queues".
func Count(n int64, one, many string) string {
	if n == 1 || n == -1 {
		return Commas(n) + " " + one
	}
	return Commas(n) + " " + many
}

// Commas writes n with its thousands grouped: 5000 → "5,000".
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Ago words a duration compactly, the one way emqtop writes one: 250ms,
// 42s, 1m, 9m05s, 3h, 3h02m, 4d. Units that are zero at the end are left
// out (1m, never 1m0s or 1m00s); an age is cut to its whole seconds.
func Ago(d time.Duration) string { return durationWords(d, false) }

// Every words a setting (an interval, a sweep) the same way, keeping a
// tenth of a second under 10s: a budget's 2.5s is not 2s.
func Every(d time.Duration) string { return durationWords(d, true) }

func durationWords(d time.Duration, tenths bool) string {
	if d < 0 {
		d = -d
	}
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case tenths && d < 10*time.Second && d%time.Second != 0:
		return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + "s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		if s := int(d.Seconds()) % 60; s != 0 {
			return fmt.Sprintf("%dm%02ds", int(d.Minutes()), s)
		}
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		if m := int(d.Minutes()) % 60; m != 0 {
			return fmt.Sprintf("%dh%02dm", int(d.Hours()), m)
		}
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// latestMs is the last millisecond a score is taken as a time for
// (9999-12-31): past it, or at ±inf, a score is no time.
const latestMs = 253402300799999

// ScoreFrom reads a sorted-set score as milliseconds: off is +1 for +inf
// or a score past any time (1e300), -1 for -inf or before any, and the
// milliseconds are then 0 (int64 of +inf is -9223372036854775808).
func ScoreFrom(f float64) (ms int64, off int8) {
	switch {
	case f != f: // NaN: a sorted set never holds one
		return 0, 1
	case f > latestMs:
		return 0, 1
	case f < -latestMs:
		return 0, -1
	}
	return int64(f), 0
}

// DeadlineWords says a lease deadline that is no time: "no deadline
// (+inf)", "deadline -inf" (the server counts it expired).
func DeadlineWords(off int8) string {
	if off > 0 {
		return "no deadline (+inf)"
	}
	return "deadline -inf"
}

// containsFold is strings.Contains(strings.ToLower(s), lowerSub) without
// allocating for ASCII names.
func containsFold(s, lowerSub string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Contains(strings.ToLower(s), lowerSub)
		}
	}
	n := len(lowerSub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lowerSub[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
