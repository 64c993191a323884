package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// walkStep is one name WalkByName reported: its places and whether it
// was carried (the same *Queue in both lists).
type walkStep struct {
	i, j    int
	carried bool
}

// naiveWalk is WalkByName's meaning, a name at a time by a plain merge.
func naiveWalk(cur, prev QueueList) []walkStep {
	var out []walkStep
	i, j := 0, 0
	for i < cur.Len() || j < prev.Len() {
		switch {
		case j >= prev.Len() || (i < cur.Len() && cur.At(i).Name < prev.At(j).Name):
			out = append(out, walkStep{i, -1, false})
			i++
		case i >= cur.Len() || cur.At(i).Name > prev.At(j).Name:
			out = append(out, walkStep{-1, j, false})
			j++
		default:
			out = append(out, walkStep{i, j, cur.At(i) == prev.At(j)})
			i, j = i+1, j+1
		}
	}
	return out
}

// WalkByName reports every name once, at its places, carried or not, as a
// plain merge does, whatever changed between the lists: readings replaced,
// queues come and gone, runs of each in a chunk, with runs of carried
// queues to shared and one by one without it; and it stops when told.
// (Its chunk walk compares pointers and stops at the first name that
// differs: a mutation that reports a new reading as carried, or walks on
// past a name that came, fails here.)
func TestWalkByNameAgreesWithAMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	for round := range 300 {
		// lists of up to 6 chunks, or 60 in some rounds, a place in 20 or
		// in 200 read anew: few places beside the chunks, or many
		n := rng.IntN([]int{6, 60}[round%2] * QueueChunk)
		rate := []int{20, 200}[round/2%2]
		names := make([]string, 0, 2*n)
		for k := range 2 * n {
			names = append(names, fmt.Sprintf("q%05d", k))
		}
		var prevQs []*Queue
		for _, name := range names {
			if rng.IntN(2) == 0 {
				prevQs = append(prevQs, &Queue{Name: name})
			}
		}
		prev := ListOf(prevQs...)
		// a few readings replaced in place (With shares the other chunks)
		var idx []int
		var put []*Queue
		for k, q := range prevQs {
			if rng.IntN(rate) == 0 {
				idx, put = append(idx, k), append(put, &Queue{Name: q.Name})
			}
		}
		cur := prev.With(idx, put)
		// it says where it came from when the places are few beside the
		// chunks (a walk of them is cheaper), not otherwise
		if few := len(idx) > 0 && len(idx) <= len(prev.chunks)/fewPlaces; cur.from.of(prev) != few {
			t.Fatalf("round %d: %d places of %d chunks, made by With; says it came from prev: %v", round, len(idx), len(prev.chunks), !few)
		}
		if round%3 == 1 { // and made again by With, as Compact does after a poll
			var idx2 []int
			var put2 []*Queue
			for k, q := range prevQs {
				if rng.IntN(rate) == 0 {
					idx2, put2 = append(idx2, k), append(put2, &Queue{Name: q.Name})
				}
			}
			mid := cur
			cur = cur.With(idx2, put2)
			// it came from mid, not from prev, which mid came from (the
			// walk from prev is by chunk, below)
			if len(idx2) > 0 && ((len(idx) > 0 && cur.from.of(prev)) || (len(idx2) <= len(prev.chunks)/fewPlaces) != cur.from.of(mid)) {
				t.Fatalf("round %d: a list made by With of one made by With (%d and %d places): from prev %v, from the list between %v", round, len(idx), len(idx2), cur.from.of(prev), cur.from.of(mid))
			}
		}
		if round%3 == 0 { // and queues come or go, in some rounds
			qs := cur.Slice()
			var out []*Queue
			p := 0
			for _, name := range names {
				switch {
				case p < len(qs) && qs[p].Name == name:
					if rng.IntN(40) != 0 {
						out = append(out, qs[p])
					}
					p++
				case rng.IntN(40) == 0:
					out = append(out, &Queue{Name: name})
				}
			}
			cur = ListOf(out...)
		}
		want := naiveWalk(cur, prev)
		// the walk of the places With replaced, and the walk of every chunk
		// (the same lists, cur's origin forgotten)
		slow := cur
		slow.from = nil
		for _, c := range []struct {
			cur  QueueList
			runs bool
		}{{cur, true}, {cur, false}, {slow, true}, {slow, false}} {
			cur, runs := c.cur, c.runs
			var got []walkStep
			var shared func(lo, hi int) bool
			if runs {
				shared = func(lo, hi int) bool {
					if lo >= hi {
						t.Fatalf("round %d: an empty run %d..%d", round, lo, hi)
					}
					for k := lo; k < hi; k++ {
						if cur.At(k) != prev.At(k) {
							t.Fatalf("round %d: place %d given as carried, its queue was read anew", round, k)
						}
						got = append(got, walkStep{k, k, true})
					}
					return true
				}
			}
			done := WalkByName(cur, prev, shared, func(i, j int) bool {
				carried := i >= 0 && j >= 0 && cur.At(i) == prev.At(j)
				got = append(got, walkStep{i, j, carried})
				return true
			})
			if !done || !slices.Equal(got, want) {
				t.Fatalf("round %d (runs %v, from %v): the walk gave %d steps, a merge %d:\n%v\n%v", round, runs, cur.from != nil, len(got), len(want), got, want)
			}
		}
		// told to stop at the k-th name, it stops there
		for _, cur := range []QueueList{cur, slow} {
			if len(want) == 0 {
				break
			}
			stop, calls := rng.IntN(len(want)), 0
			done := WalkByName(cur, prev, nil, func(i, j int) bool {
				calls++
				return calls <= stop
			})
			if done || calls != stop+1 {
				t.Fatalf("round %d (from %v): told to stop after %d names, it called %d and said done %v", round, cur.from != nil, stop+1, calls, done)
			}
		}
	}
}

// BenchmarkWalkByName: a million queues, a thousand read anew, walked
// as the dashboard's session memory walks them each poll.
func BenchmarkWalkByName(b *testing.B) {
	const n, changed = 1_000_000, 1_000
	qs := make([]*Queue, n)
	for i := range qs {
		qs[i] = &Queue{Name: fmt.Sprintf("tenant-%07d", i)}
	}
	prev := ListOf(qs...)
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]int, 0, changed)
	for _, i := range rng.Perm(n)[:changed] {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	put := make([]*Queue, len(idx))
	for k, i := range idx {
		put[k] = &Queue{Name: qs[i].Name}
	}
	made := prev.With(idx, put)
	every := made
	every.from = nil
	// the caches as a poll leaves them: cold (a poll's other work and the
	// collector pass between two walks)
	evict := make([]byte, 64<<20)
	for _, c := range []struct {
		name string
		cur  QueueList
	}{{"from", made}, {"chunks", every}} { // made by With from prev, as the poller's; or any two lists
		b.Run(c.name, func(b *testing.B) { walkCold(b, c.cur, prev, evict, changed) })
	}
}

// walkCold walks cur from prev b.N times, the caches emptied before each.
func walkCold(b *testing.B, cur, prev QueueList, evict []byte, changed int) {
	for range b.N {
		b.StopTimer()
		for k := 0; k < len(evict); k += 64 {
			evict[k]++
		}
		b.StartTimer()
		anew := 0
		WalkByName(cur, prev, func(lo, hi int) bool { return true }, func(i, j int) bool {
			if cur.At(i) != prev.At(j) {
				anew++
			}
			return true
		})
		if anew != changed {
			b.Fatalf("%d read anew, want %d", anew, changed)
		}
	}
}
