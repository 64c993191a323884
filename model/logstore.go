package model

// logStore holds every series' log of a History in chunks of records with
// no pointer in them (issue 24: the hour of a million queues).
//
// Why: each series' log was an array of its own, and a queue's Past a
// slice of it. After an hour at a million queues most series have changed
// at least once, so a million arrays, each an object the collector finds
// and marks at every collection (BenchmarkCollectMillion: 280-330 ms of CPU
// a collection after an hour, 45-95 after two minutes), and a million
// slices in the queues pointing at them. Here a log is a span of a chunk,
// named by the chunk's number and a slot in it; a Past names the slot, not
// the memory, and the chunks' arrays are records alone, which the
// collector never looks into.
//
// What a Past names stays what it said: the store writes a span only past
// the changes a view has been given (an append; the last change rewritten
// only in the poll that made it, before any snapshot of that poll), and a
// log that outgrows its span moves to a new one, leaving the old one as it
// was. A chunk whose spans have mostly moved out is copied, its live spans
// packed, into a new array under the same number: its slots keep their
// numbers, so a carried queue's Past names its log there as before, and a
// Clock made before the copy keeps the old array (Clock.logs). Nothing a
// published view reads is ever written again, so the screens read with no
// lock.
type logStore struct {
	chunks []*logChunk // by number; nil: a number free for a new chunk
	free   []uint32    // free numbers
	bump   int         // the chunk new spans are cut from (-1: none)
	// views is what the last Clock was given, nil once anything it
	// holds moved (a slot added, a chunk made or copied)
	views []chunkView
	// rebased counts the chunks copied with a new base (for the tests)
	rebased int
}

// logChunk is one chunk: what a view reads (recs, off) and what only the
// History's owner reads (caps, used, live).
type logChunk struct {
	recs []rec    // fixed length: never appended to, so never moved
	base int64    // the time its records count from (rec.at)
	off  []uint32 // each slot's span start in recs; a slot's entry is never changed once a view has it
	caps []uint32 // each slot's span length, 0 once it is dead (the writer's alone)
	used uint32   // recs cut from recs so far
	live uint32   // recs in live spans
	n    int      // live slots
}

// chunkView is a chunk as a Clock reads it.
type chunkView struct {
	recs []rec
	off  []uint32
	base int64
}

// deadSlot is a packed chunk's start of a slot that spans nothing: a view
// of it reads no record (Clock.view), not another log's.
const deadSlot = ^uint32(0)

// chunkRecs is how many records a chunk holds (2 MB); a var so that a test
// can make chunks small and watch them copied.
var chunkRecs = 1 << 16

func newLogStore() logStore { return logStore{bump: -1} }

// span is a series' place: chunk and slot.
type span struct{ chunk, slot uint32 }

// alloc cuts a span of n records at time nowMs; the log is empty there.
// A chunk started now counts its records from now.
func (l *logStore) alloc(n uint32, nowMs int64) span {
	if l.bump < 0 || l.chunks[l.bump].used+n > uint32(len(l.chunks[l.bump].recs)) {
		l.bump = l.newChunk(max(chunkRecs, int(n)), nowMs)
	}
	c := l.chunks[l.bump]
	sp := span{uint32(l.bump), uint32(len(c.off))}
	c.off = append(c.off, c.used)
	c.caps = append(c.caps, n)
	c.used += n
	c.live += n
	c.n++
	l.views = nil
	return sp
}

func (l *logStore) newChunk(n int, base int64) int {
	c := &logChunk{recs: make([]rec, n), base: base}
	l.views = nil
	if k := len(l.free); k > 0 {
		i := l.free[k-1]
		l.free = l.free[:k-1]
		l.chunks[i] = c
		return int(i)
	}
	l.chunks = append(l.chunks, c)
	return len(l.chunks) - 1
}

// release marks a span dead: its records stay as they were for the views
// that have them, and are dropped when the chunk is copied or let go.
func (l *logStore) release(sp span) {
	c := l.chunks[sp.chunk]
	c.live -= c.caps[sp.slot]
	c.caps[sp.slot] = 0
	c.n--
	if c.n == 0 && int(sp.chunk) != l.bump {
		l.chunks[sp.chunk] = nil // a Clock that has it keeps it
		l.free = append(l.free, sp.chunk)
		l.views = nil
	}
}

// room is the span's length; recs is its records (the writer's view) and
// the time they count from.
func (l *logStore) room(sp span) uint32 { return l.chunks[sp.chunk].caps[sp.slot] }

func (l *logStore) recs(sp span, n uint32) ([]rec, int64) {
	c := l.chunks[sp.chunk]
	o := c.off[sp.slot]
	return c.recs[o : o+n : o+c.caps[sp.slot]], c.base
}

// rebaseAfter is how long a chunk counts its records from one base (12
// days: 31 bits of ms hold 24); a var so that a test can rebase often.
var rebaseAfter = int64(1 << 30)

// pack copies, at most budget records a call, the sparsest chunks (less
// than half of what was cut from them still live) into arrays of their
// live spans, and the chunks whose base is rebaseAfter old with a new one:
// the start of the oldest bucket a minute before, as of nowMs. A bump
// chunk that old is left to fill no more (pack takes it next).
func (l *logStore) pack(budget int, nowMs int64) {
	whole := budget
	if l.bump >= 0 && nowMs-l.chunks[l.bump].base > rebaseAfter {
		l.bump = -1
	}
	for i, c := range l.chunks {
		if c == nil || i == l.bump {
			continue
		}
		old := nowMs-c.base > rebaseAfter
		if c.n == 0 {
			l.chunks[i] = nil
			l.free = append(l.free, uint32(i))
			l.views = nil
			continue
		}
		if (!old && c.live*2 >= c.used) || (int(c.live) > budget && budget < whole) {
			continue
		}
		budget -= int(c.live)
		base := c.base
		if old {
			base = nowMs - (CoarseN+1)*CoarseStep.Milliseconds()
			l.rebased++
		}
		l.chunks[i] = c.packed(base)
		l.views = nil
	}
}

// packed is c with its live spans copied, in slot order, into an array of
// their length, its records counted from base; dead slots keep their
// number and span nothing.
func (c *logChunk) packed(base int64) *logChunk {
	p := &logChunk{recs: make([]rec, c.live), base: base, off: make([]uint32, len(c.off)), caps: c.caps, live: c.live, used: c.live, n: c.n}
	at := uint32(0)
	for s, n := range c.caps {
		if n == 0 {
			p.off[s] = deadSlot
			continue
		}
		copy(p.recs[at:at+n], c.recs[c.off[s]:c.off[s]+n])
		shift(p.recs[at:at+n], c.base, base)
		p.off[s] = at
		at += n
	}
	return p
}

// view is the chunks as a Clock reads them: made again only when one
// moved since the last.
func (l *logStore) view() []chunkView {
	if l.views == nil {
		l.views = make([]chunkView, len(l.chunks))
		for i, c := range l.chunks {
			if c != nil {
				l.views[i] = chunkView{recs: c.recs, off: c.off[:len(c.off):len(c.off)], base: c.base}
			}
		}
	}
	return l.views
}
