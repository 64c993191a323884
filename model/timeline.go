package model

// TimelineColumn is one column of the lease-expiry timeline.
type TimelineColumn struct {
	Count   int64
	Expired bool // the column lies at or before now
}

// Timeline maps a histogram over edges (ms relative to now) onto width
// columns spanning edges[0]..edges[last]. before and after are the leases
// outside the window.
func Timeline(hist, edges []int64, width int) (cols []TimelineColumn, before, after int64) {
	if width <= 0 || len(edges) < 2 || len(hist) != len(edges)+1 {
		return make([]TimelineColumn, max(0, width)), 0, 0
	}
	before, after = hist[0], hist[len(hist)-1]
	cols = make([]TimelineColumn, width)
	lo, hi := edges[0], edges[len(edges)-1]
	span := float64(hi - lo)
	for c := range cols {
		end := float64(lo) + span*float64(c+1)/float64(width)
		cols[c].Expired = end <= 0
	}
	// bucket i (1..len(edges)-1) is (edges[i-1], edges[i]]: its count goes
	// to the column of its middle
	for i := 1; i < len(edges); i++ {
		mid := float64(edges[i-1]+edges[i]) / 2
		c := int((mid - float64(lo)) / span * float64(width))
		c = max(0, min(width-1, c))
		cols[c].Count += hist[i]
	}
	return cols, before, after
}
