package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// A list made by With holds the new queues at their places and the old
// ones elsewhere, leaves the list it was made from as it was, and shares
// exactly the chunks with no place changed.
func TestQueueListWith(t *testing.T) {
	for _, n := range []int{0, 1, QueueChunk - 1, QueueChunk, QueueChunk + 1, 5*QueueChunk + 7} {
		qs := make([]*Queue, n)
		for i := range qs {
			qs[i] = &Queue{Name: fmt.Sprintf("q%04d", i)}
		}
		l := ListOf(qs...)
		if l.Len() != n || !slices.Equal(l.Slice(), qs) {
			t.Fatalf("n %d: ListOf holds %d, not the queues given", n, l.Len())
		}
		for i, q := range l.All() {
			if q != qs[i] || l.At(i) != qs[i] {
				t.Fatalf("n %d: place %d holds %v", n, i, q.Name)
			}
		}
		var idx []int
		var put []*Queue
		for i := 0; i < n; i += QueueChunk + 3 {
			idx, put = append(idx, i), append(put, &Queue{Name: qs[i].Name})
		}
		m := l.With(idx, put)
		want := slices.Clone(qs)
		for k, i := range idx {
			want[i] = put[k]
		}
		if !slices.Equal(m.Slice(), want) || !slices.Equal(l.Slice(), qs) {
			t.Fatalf("n %d: With put the wrong queues, or wrote the list it was made from", n)
		}
		more := &Queue{Name: "more"}
		if a := l.Append(more, more); a.Len() != n+2 || a.At(n+1) != more || !slices.Equal(a.Slice()[:n], qs) || !slices.Equal(l.Slice(), qs) {
			t.Fatalf("n %d: Append holds %d, or wrote the list it was made from", n, a.Len())
		}
		for i := 0; i < n; i++ {
			changed := false
			for _, k := range idx {
				changed = changed || k>>queueChunkBits == i>>queueChunkBits
			}
			if m.Shares(l, i) == changed {
				t.Fatalf("n %d: place %d shared %v, its chunk changed %v", n, i, m.Shares(l, i), changed)
			}
		}
	}
}

// BenchmarkListWithMillion: what a poll's new list costs at a million
// queues, 1,700 of them changed at random places (the dashboard's reads a
// poll at a million): the bytes are the chunks copied and the table.
//
//	go test ./model -run x -bench ListWithMillion -benchmem
func BenchmarkListWithMillion(b *testing.B) {
	const n, changed = 1_000_000, 1_700
	qs := make([]*Queue, n)
	for i := range qs {
		qs[i] = &Queue{}
	}
	l := ListOf(qs...)
	rng := rand.New(rand.NewPCG(1, 2))
	idx, fresh := make([]int, changed), make([]*Queue, changed)
	for i := range fresh {
		fresh[i] = &Queue{}
	}
	for b.Loop() {
		b.StopTimer()
		idx = idx[:changed]
		for k := range idx {
			idx[k] = rng.IntN(n)
		}
		slices.Sort(idx)
		idx = slices.Compact(idx)
		b.StartTimer()
		l = l.With(idx, fresh[:len(idx)])
	}
}
