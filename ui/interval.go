package ui

import (
	"strings"
	"time"
)

// intervals is the ladder + and - climb: a fixed set, so every step can be
// undone and 1s is always reached again.
var intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second,
	5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute}

// intervalStep is the rung next to d, up (+1: less often) or down (-1);
// an interval off the ladder (--interval 3s) goes to the next rung that
// way; the ends stay where they are.
func intervalStep(d time.Duration, dir int) time.Duration {
	if dir > 0 {
		for _, r := range intervals {
			if r > d {
				return r
			}
		}
		return max(d, intervals[len(intervals)-1])
	}
	for i := len(intervals) - 1; i >= 0; i-- {
		if intervals[i] < d {
			return intervals[i]
		}
	}
	return min(d, intervals[0])
}

func ladderWords() string {
	w := make([]string, len(intervals))
	for i, r := range intervals {
		w[i] = every(r)
	}
	return strings.Join(w, ", ")
}
