package model

import (
	"math"

	"github.com/echomq/emqtop/keyspace"
)

// Heatmap bins the 16384 slots into n cells (n at most 16384).
func (f *Fold) Heatmap(n int) []HeatCell { return f.HeatmapInto(nil, n) }

// HeatmapInto is Heatmap in dst's array when it has room (a screen's last
// cells, which it no longer reads: 200 KB a snapshot otherwise).
func (f *Fold) HeatmapInto(dst []HeatCell, n int) []HeatCell {
	n = max(1, min(n, keyspace.SlotCount))
	cells := dst[:0]
	if cap(cells) < n {
		cells = make([]HeatCell, n)
	}
	cells = cells[:n]
	var owner = &f.Snap.Topology.Owner
	counts := make([]int, len(f.Snap.Nodes)+1)
	var maxLoad int64
	for i := range cells {
		lo, hi := CellRange(i, n)
		c := HeatCell{Lo: lo, Hi: hi, Owner: -1}
		var cpu, net float64
		clear(counts)
		for s := int(lo); s <= int(hi); s++ {
			o := owner[s]
			if o < 0 {
				c.Uncovered++
			} else if int(o) < len(counts) {
				counts[o]++
			}
			c.Load += f.SlotLoad[s]
			c.Expired += f.SlotExpired[s]
			c.Queues += f.InSlot(uint16(s))
			if l := f.Snap.Load; l != nil {
				if l.Keys != nil {
					c.Keys += l.Keys[s]
				}
				if l.CPU != nil {
					cpu += l.CPU[s]
					net += l.Net[s]
				}
			}
		}
		c.CPU, c.Net = int64(math.Round(cpu)), int64(math.Round(net))
		best := 0
		for o, k := range counts {
			if k > best {
				best, c.Owner = k, int16(o)
			}
		}
		maxLoad = max(maxLoad, c.Load)
		cells[i] = c
	}
	for i := range cells {
		cells[i].Level = Level(cells[i].Load, maxLoad)
	}
	return cells
}

// Level is a brightness 0..4: 0 for no load, else a log scale against max.
func Level(load, max int64) int {
	if load <= 0 || max <= 0 {
		return 0
	}
	l := 1 + int(3*math.Log1p(float64(load))/math.Log1p(float64(max))+0.5)
	return min(4, l)
}
