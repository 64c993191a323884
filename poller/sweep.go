package poller

import (
	"time"

	"github.com/echomq/emqtop/keyspace"
)

// sweep moves the sweep on by the share of the slots that the time since
// the last poll is of Sweep, and marks them; it holds until the budget
// has set its first stretch (firstStretch).
func (p *Poller) sweep(now time.Time) {
	ch := &p.ch
	if !ch.sweepAt.IsZero() && ch.stretchSet {
		adv := float64(keyspace.SlotCount) * float64(now.Sub(ch.sweepAt)) / float64(p.opt.Sweep*time.Duration(max(1, ch.stretch)))
		end := ch.sweepPos + min(adv, keyspace.SlotCount)
		for s := int(ch.sweepPos); s < int(end); s++ {
			ch.mark(uint16(s%keyspace.SlotCount), needSweep)
		}
		ch.sweepPos = end
		for ch.sweepPos >= keyspace.SlotCount {
			ch.sweepPos -= keyspace.SlotCount
		}
	}
	ch.sweepAt = now
}

// unset clears flags at the places at, and is flags.
func unset(flags []bool, at []int) []bool {
	for _, i := range at {
		flags[i] = false
	}
	return flags
}
