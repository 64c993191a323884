package model

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/echomq/emqtop/internal/gcstat"
)

// arenaNames are names of every kind the arena must keep whole: the empty
// name, short ones, one longer than a block, and enough to fill blocks.
func arenaNames() []string {
	names := []string{"", "a", "orders", strings.Repeat("x", nameBlock+5), "orders2", "b"}
	for i := range 4000 {
		names = append(names, fmt.Sprintf("tenant-%d-%s", i, strings.Repeat("y", i%700)))
	}
	return names
}

// A name put from a string of its own is copied into the arena and reads
// back whole (the empty name, a name longer than a block, names across
// blocks); the arena's own string put again is found where it lies, and
// nothing more is mapped.
func TestNameArenaFindsItsOwnStrings(t *testing.T) {
	var a nameArena
	names := arenaNames()
	refs := make([]nameRef, len(names))
	for i, n := range names {
		refs[i], _ = a.put(strings.Clone(n))
	}
	mapped := a.mapped
	if mapped < nameBlock*2 {
		t.Fatalf("%d bytes mapped for names of %d bytes and more", mapped, nameBlock+5)
	}
	for i, n := range names {
		b := refBytes(a.blocks, refs[i])
		if string(b) != n {
			t.Fatalf("%.20q reads back as %.20q", n, b)
		}
		own := ""
		if len(b) > 0 {
			own = unsafe.String(&b[0], len(b))
		}
		if r, _ := a.put(own); r != refs[i] {
			t.Errorf("the arena's own %.20q put again at %v, first at %v", n, r, refs[i])
		}
		// a string on the heap is no string of the arena's, even when it
		// has the same bytes
		if n != "" {
			if _, ok := a.holds(strings.Clone(n)); ok {
				t.Errorf("a copy of %.20q on the heap taken for the arena's", n)
			}
		}
	}
	if a.mapped != mapped {
		t.Errorf("putting the arena's own names again mapped %d bytes more", a.mapped-mapped)
	}
}

// Tables made from another table's names (the history's from the queues',
// the poller's made again), one after another or at once from many
// goroutines while more names come, hold each name where the first table
// put it, and map nothing more; a table's names stay right while others
// put more (its copy of the blocks holds them).
func TestNameTablesShareTheArena(t *testing.T) {
	names := arenaNames()
	first := NewNameTable()
	for _, n := range names {
		first.Add(strings.Clone(n))
	}
	before := NameBytesMapped()
	tables := make([]*NameTable, 8)
	var wg sync.WaitGroup
	for g := range tables {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := NewNameTable()
			for k := range names {
				x.Add(first.Name((k + g*500) % len(names)))
			}
			tables[g] = x
		}()
	}
	more := NewNameTable() // new names meanwhile
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20000 {
			more.Add(fmt.Sprintf("new-%d", i))
		}
	}()
	wg.Wait()
	if grown := NameBytesMapped() - before; grown > 2*nameBlock {
		t.Errorf("8 tables of the first one's names, and 20,000 new names, mapped %d bytes", grown)
	}
	for g, x := range tables {
		for k := range names {
			i := (k + g*500) % len(names)
			got := x.Name(k)
			if got != names[i] {
				t.Fatalf("table %d: id %d holds %.20q, want %.20q", g, k, got, names[i])
			}
			if id, ok := x.ID(names[i]); !ok || id != k {
				t.Fatalf("table %d: %.20q found as %d %v, want %d", g, names[i], id, ok, k)
			}
			if names[i] != "" && unsafe.StringData(got) != unsafe.StringData(first.Name(i)) {
				t.Fatalf("table %d: %.20q copied, not shared", g, names[i])
			}
		}
	}
	for i := range 20000 {
		if got := more.Name(i); got != fmt.Sprintf("new-%d", i) {
			t.Fatalf("the new names' table: id %d holds %q", i, got)
		}
	}
}

// BenchmarkCollectNames: what a million queues' names cost each collection,
// the names in the arena (as the poller's tables give them) against the
// same names as strings on the heap (as they were). The queues come from a
// QueueStore's slabs, as the poller's do.
//
//	go test ./model -run x -bench CollectNames -benchtime 5x
func BenchmarkCollectNames(b *testing.B) {
	const n = 1_000_000
	x := NewNameTable()
	x.Reserve(n)
	for i := range n {
		x.Add(fmt.Sprintf("tenant-%07d:orders", i))
	}
	for _, where := range []string{"arena", "heap blocks", "heap", "none"} {
		b.Run(where, func(b *testing.B) {
			var s QueueStore
			qs := make([]*Queue, n)
			s.Take(qs)
			var block []byte
			for i, q := range qs {
				q.Name = x.Name(i)
				switch where {
				case "heap": // a string each, as names were first
					q.Name = strings.Clone(q.Name)
				case "none":
					q.Name = ""
				case "heap blocks": // in blocks of the heap, as the tables held them before the arena
					if len(block)+len(q.Name) > cap(block) {
						block = make([]byte, 0, nameBlock)
					}
					block = append(block, q.Name...)
					q.Name = unsafe.String(&block[len(block)-len(q.Name)], len(q.Name))
				}
			}
			l := ListOf(qs...)
			qs = nil
			gcstat.Collection()
			var cpu float64
			for b.Loop() {
				cpu += float64(gcstat.Collection().Microseconds()) / 1000
			}
			b.ReportMetric(cpu/float64(b.N), "gc-cpu-ms/collection")
			runtime.KeepAlive(l) // the queues live through every collection
			runtime.KeepAlive(x)
		})
	}
}
