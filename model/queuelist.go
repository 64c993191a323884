package model

import (
	"iter"
	"slices"
)

// queueChunkBits: a QueueList holds its queues in chunks of 32. A poll
// that changes 1,700 queues of a million at random copies a chunk for
// nearly each and the table of chunks once: 677 KB with chunks of 32, 956
// KB with 64 (the half as many chunks copied at twice the size), 722 KB
// with 16 (the table twice as large); a walk of the list costs the same.
const queueChunkBits = 5

// QueueChunk is how many queues a chunk of a QueueList holds.
const QueueChunk = 1 << queueChunkBits

// QueueList is a snapshot's queues, in order, in chunks that consecutive
// snapshots share where none of their queues changed: a poll of a million
// queues that changed a thousand makes a list of a thousand new chunks and
// a table of 31,250, not an array of a million (8 MB a poll for the
// garbage collector). A list is never written once made: With makes a new
// one. The zero value is empty.
type QueueList struct {
	// the chunks, full but the last (its places from n on are nil); a
	// table of pointers to arrays, 8 bytes a chunk, not a slice's 24: the
	// table is what each poll copies whole (125 KB at a million queues, not
	// 375)
	chunks []*queueChunk
	n      int
	// from, for a list made by With, is the list it was made from and the
	// places where it holds another reading of the same name: a walk from
	// that list to this one (WalkByName, each poll, twice) visits those
	// places alone, not every chunk's table entry and each changed chunk
	// of both (1.2 ms a poll at a million queues, a thousand read)
	from *listFrom
}

// listFrom is where a list made by With came from: the base's table of
// chunks (a table is never written once its list is made, so it names the
// base) and the places replaced, ascending.
type listFrom struct {
	chunks []*queueChunk
	n      int
	idx    []int
}

// of reports whether prev is the list this one was made from.
func (d *listFrom) of(prev QueueList) bool {
	return d != nil && d.n == prev.n && len(d.chunks) == len(prev.chunks) &&
		(len(d.chunks) == 0 || &d.chunks[0] == &prev.chunks[0])
}

type queueChunk [QueueChunk]*Queue

// ListOf is a list of qs, in that order (qs is copied).
func ListOf(qs ...*Queue) QueueList {
	var b QueueListBuilder
	for _, q := range qs {
		b.Add(q)
	}
	return b.List()
}

// Len is how many queues the list holds.
func (l QueueList) Len() int { return l.n }

// At is the queue at place i (0 ≤ i < Len).
func (l QueueList) At(i int) *Queue {
	if i < 0 || i >= l.n {
		panic("model: QueueList index out of range")
	}
	return l.chunks[i>>queueChunkBits][i&(QueueChunk-1)]
}

// chunk is chunk c's queues (the last one's up to n).
func (l QueueList) chunk(c int) []*Queue {
	return l.chunks[c][:l.chunkLen(c)]
}

// All yields each place and queue, in order.
func (l QueueList) All() iter.Seq2[int, *Queue] {
	return func(yield func(int, *Queue) bool) {
		i := 0
		for c := range l.chunks {
			for _, q := range l.chunk(c) {
				if !yield(i, q) {
					return
				}
				i++
			}
		}
	}
}

// Slice is the queues in one new slice.
func (l QueueList) Slice() []*Queue {
	out := make([]*Queue, 0, l.n)
	for c := range l.chunks {
		out = append(out, l.chunk(c)...)
	}
	return out
}

// With is l with the queue at each place idx[k] replaced by qs[k]; idx
// ascending. The chunks with no place in idx are l's, shared. When each
// queue put has the name of the one it replaces (a new reading, as the
// poller's are) and the places are few, the list keeps that it came from
// l, for WalkByName. (From l only, never from the list l came from: a
// poll's list came from the last poll's, which came from the one before,
// and a walk is from the list a reader saw last.)
func (l QueueList) With(idx []int, qs []*Queue) QueueList {
	if len(idx) == 0 {
		return l
	}
	out := QueueList{chunks: slices.Clone(l.chunks), n: l.n}
	last, same := -1, true
	for k, i := range idx {
		c := i >> queueChunkBits
		if c != last {
			copied := *l.chunks[c]
			out.chunks[c] = &copied
			last = c
		}
		old := &out.chunks[c][i&(QueueChunk-1)]
		same = same && (k == 0 || idx[k-1] < i) && (*old).Name == qs[k].Name
		*old = qs[k]
	}
	// kept while the places are few beside the chunks, where a walk of
	// them is cheaper than a walk of the chunks (Compact moves up to
	// 131,072 queues a call: those lists are walked by chunk)
	if same && len(idx) <= len(l.chunks)/fewPlaces {
		out.from = &listFrom{chunks: l.chunks, n: l.n, idx: slices.Clone(idx)}
	}
	return out
}

// fewPlaces: a list made by With keeps its places for a walk while they
// are at most one for each fewPlaces chunks (a place costs a walk about
// what a chunk's table entry and its changed chunks cost it per chunk:
// BenchmarkWalkByName, 0.12 ms for 1,000 places, 0.91 for 31,250 chunks).
const fewPlaces = 4

// Shares reports whether l and m hold the very same chunk at place i's
// (and so the same queues at every place of it), with no look at a queue.
// A chunk is never written once two lists hold it.
func (l QueueList) Shares(m QueueList, i int) bool {
	c := i >> queueChunkBits
	if c >= len(l.chunks) || c >= len(m.chunks) || i >= l.n || i >= m.n {
		return false
	}
	// the lengths by arithmetic: slicing a chunk (chunk) checks its
	// pointer by a load, a cache miss for each of a million queues' chunks
	// that the walks of a poll pass (2 ms a poll at a million)
	return l.chunks[c] == m.chunks[c] && l.chunkLen(c) == m.chunkLen(c)
}

// chunkLen is how many places chunk c holds, with no look at it.
func (l QueueList) chunkLen(c int) int { return min(QueueChunk, l.n-c<<queueChunkBits) }

// ChunkEnd is the first place after the chunk that holds place i.
func ChunkEnd(i int) int { return (i>>queueChunkBits + 1) << queueChunkBits }

// QueueListBuilder makes a QueueList a queue at a time.
type QueueListBuilder struct{ l QueueList }

// Add puts q after the queues added so far.
func (b *QueueListBuilder) Add(q *Queue) {
	if b.l.n&(QueueChunk-1) == 0 {
		b.l.chunks = append(b.l.chunks, new(queueChunk))
	}
	b.l.chunks[len(b.l.chunks)-1][b.l.n&(QueueChunk-1)] = q
	b.l.n++
}

// List is the queues added; the builder starts empty again.
func (b *QueueListBuilder) List() QueueList {
	l := b.l
	b.l = QueueList{}
	return l
}

// Append is l with qs after its queues; l is left as it was (its last
// chunk, when not full, is copied, never written).
func (l QueueList) Append(qs ...*Queue) QueueList {
	b := QueueListBuilder{l: QueueList{chunks: slices.Clone(l.chunks), n: l.n}}
	if c := len(b.l.chunks) - 1; c >= 0 && l.n&(QueueChunk-1) != 0 {
		copied := *b.l.chunks[c]
		b.l.chunks[c] = &copied
	}
	for _, q := range qs {
		b.Add(q)
	}
	return b.List()
}
