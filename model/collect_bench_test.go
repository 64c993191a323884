package model

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/echomq/emqtop/internal/gcstat"
)

// BenchmarkCollectMillion: what one collection of a million queues' state
// costs, the state made the way the poller makes it (queues from a
// QueueStore, names from a NameTable, a list of chunks, each queue's past
// in a History), after the history's first two minutes and after an hour
// of 1,000 queues written a second (a poll a second, each written queue
// read anew: a copy from the store, its past carried and put, the list's
// chunk replaced). No cluster: the state alone, for the share of the
// dashboard's collections that is its own.
//
//	go test ./model -run x -bench CollectMillion -benchtime 3x
func BenchmarkCollectMillion(b *testing.B) {
	// 1,700 read a poll, each a change (the dashboard's at a million: the
	// written and the sweep's, whose oldest pending age has moved)
	const n, written = 1_000_000, 1_700
	for _, polls := range []int{120, 3600} {
		b.Run(fmt.Sprintf("polls=%d", polls), func(b *testing.B) {
			x := NewNameTable()
			x.Reserve(n)
			var store QueueStore
			qs := make([]*Queue, n)
			store.Take(qs)
			h := NewHistory()
			h.Reserve(n)
			h.Begin(1_000)
			for i, q := range qs {
				q.Name = x.Name(x.Add(fmt.Sprintf("tenant-%07d:orders", i)))
				q.Pending, q.Active = 2, 0
				h.PutQueue(q, [Metrics]int64{2, 0, 0, 0, 0})
			}
			l := ListOf(qs...)
			qs = nil
			rng := rand.New(rand.NewPCG(1, 2))
			for p := range polls {
				h.Begin(int64(2+p) * 1_000)
				idx := make([]int, written)
				for k := range idx {
					idx[k] = rng.IntN(n)
				}
				slices.Sort(idx)
				idx = slices.Compact(idx)
				fresh := make([]*Queue, len(idx))
				store.Take(fresh)
				for k, i := range idx {
					prev := l.At(i)
					q := fresh[k]
					q.Name, q.Slot, q.Pending = prev.Name, prev.Slot, prev.Pending+int64(rng.IntN(3))-1
					q.CarryPast(prev)
					h.PutQueue(q, [Metrics]int64{q.Pending, 0, 0, 0, 0})
				}
				l = store.Compact(l.With(idx, fresh))
			}
			var ms runtime.MemStats
			gcstat.Collection()
			runtime.ReadMemStats(&ms)
			var cpu float64
			for b.Loop() {
				cpu += float64(gcstat.Collection().Microseconds()) / 1000
			}
			b.ReportMetric(cpu/float64(b.N), "gc-cpu-ms/collection")
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
			all, live := h.logs.held()
			b.ReportMetric(float64(all*int(unsafe.Sizeof(rec{})))/(1<<20), "logs-MB")
			b.ReportMetric(float64(live*int(unsafe.Sizeof(rec{})))/(1<<20), "logs-live-MB")
			runtime.KeepAlive(l)
			runtime.KeepAlive(h)
			runtime.KeepAlive(x)
		})
	}
}
