package model

import (
	"sync"
	"unsafe"
)

// nameArena holds names' bytes off the Go heap (mapped memory, see
// arena_unix.go), for the life of the process.
//
// Why off the heap: a queue's name is a string, a pointer, and a million
// queues' names point into the name tables' bytes from the queues, the
// poller's batches and the history. The collector looks up each such
// pointer at every collection; one into memory the Go heap does not own is
// dismissed at once (BenchmarkCollectNames: a million queues in slabs,
// 13.6-14.7 ms of CPU a collection without names, 15.9-16.5 with names in
// the arena, 17.8-18.0 with them in heap blocks). fastcache (VictoriaMetrics)
// maps its chunks for the same reason.
//
// A name is copied in once: a string that already lies in the arena (a
// queue's name given to the history's table, a table made again from the
// last one's names) is found where it lies, so the poller's table and the
// history's share their bytes. Nothing is ever unmapped: a string handed
// out may live anywhere, and the collector cannot tell when the last one
// dies. So the names a table drops when it is made again (the poller's,
// once it holds twice the names its nodes still have) stay mapped: what the
// arena holds grows with the names seen, not with the names live. Safe for
// concurrent use.
type nameArena struct {
	mu sync.Mutex
	// blocks are the mapped blocks, never written once a name is in them
	// but past its end; a new block makes a new slice, so a table's copy
	// of it stays right for the names it holds
	blocks [][]byte
	used   int // bytes of the last block taken
	mapped int // bytes mapped in all
}

// names is the process's arena: every NameTable puts its names there.
var names nameArena

// put is where name's bytes lie in the arena (copied there unless they lie
// there already), and the arena's blocks as of now, which hold it.
func (a *nameArena) put(name string) (nameRef, [][]byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if name == "" {
		return nameRef{}, a.blocks
	}
	if r, ok := a.holds(name); ok {
		return r, a.blocks
	}
	n := len(a.blocks)
	if n == 0 || a.used+len(name) > len(a.blocks[n-1]) {
		// a name longer than a block gets a block of its own; the next
		// names start a block of their own too (the last one's rest is
		// left: a name of a megabyte is rare)
		b := mapBlock(max(nameBlock, len(name)))
		a.mapped += len(b)
		a.blocks = append(a.blocks[:n:n], b) // a new slice: the tables' copies stay whole
		a.used = 0
		n++
	}
	r := nameRef{block: uint32(n - 1), off: uint32(a.used), n: uint32(len(name))}
	copy(a.blocks[n-1][a.used:], name)
	a.used += len(name)
	return r, a.blocks
}

// holds is where name lies, when its bytes are the arena's own (a string
// the arena gave out): found by its address among the blocks'.
func (a *nameArena) holds(name string) (nameRef, bool) {
	p := uintptr(unsafe.Pointer(unsafe.StringData(name)))
	for i := len(a.blocks) - 1; i >= 0; i-- { // the latest first: most names are there
		b := a.blocks[i]
		base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p >= base && p+uintptr(len(name)) <= base+uintptr(len(b)) {
			return nameRef{block: uint32(i), off: uint32(p - base), n: uint32(len(name))}, true
		}
	}
	return nameRef{}, false
}

// refBytes is the bytes of r in blocks (the arena's, or a table's copy of
// them), nil for the empty name.
func refBytes(blocks [][]byte, r nameRef) []byte {
	if r.n == 0 {
		return nil
	}
	return blocks[r.block][r.off : r.off+r.n]
}

// NameBytesMapped is how many bytes the names' arena holds off the Go heap
// (counted in the resident memory, not in the heap's figures).
func NameBytesMapped() int {
	names.mu.Lock()
	defer names.mu.Unlock()
	return names.mapped
}
