package model

import (
	"hash/maphash"
	"slices"
	"unsafe"
)

// NameTable gives each name an id, 0, 1, 2… in the order they were added,
// and holds a million names with nothing the garbage collector follows: a
// table of the names' hashes and ids (one array of integers), and the
// names' bytes in the process's arena of names, off the heap (arena.go),
// each name found by offsets. (A map of strings was 1,000,000 pointers to
// mark at every collection, and the table of names as many again; issue
// 24.)
//
// The table is open addressing in one flat array, each slot a name's id
// and 32 bits of its hash: a look-up reads one slot of it, most often (and
// the name's bytes, to be sure), where a Go map of a million entries read
// its directory, a group's control word and the group: each a cache miss
// at that size (BenchmarkNameTableID). Names of one hash are never
// confused: each is compared, byte for byte, with the name asked for.
//
// A name, once added, is never written again: Name's strings are the
// arena's bytes, not copies, so a million of them point into a few
// mapped blocks, not at a million objects, and the collector passes them
// by. Names are never taken out: a holder whose names come and go makes a
// new table when most of the old one's are gone. Not safe for concurrent
// use.
type NameTable struct {
	seed maphash.Seed
	hash func(seed maphash.Seed, name string) uint64 // maphash.String; a test gives its own
	// slots: 0 empty, else the hash's high 32 bits above id+1; a name's
	// first slot is its hash's low bits, the next ones after it (mod the
	// length, a power of two)
	slots  []uint64
	blocks [][]byte // the arena's blocks as of the last name added: they hold every name here
	refs   []nameRef
}

type nameRef struct{ block, off, n uint32 }

// nameBlock is the size of a block of the arena's names.
const nameBlock = 1 << 20

// NewNameTable is an empty table.
func NewNameTable() *NameTable {
	return &NameTable{seed: maphash.MakeSeed(), hash: maphash.String, slots: make([]uint64, 16)}
}

// Reserve makes room for n names in all.
func (x *NameTable) Reserve(n int) {
	if n > len(x.refs) {
		x.refs = slices.Grow(x.refs, n-len(x.refs))
		x.grow(n)
	}
}

// grow makes the slots hold n names at most three quarters full.
func (x *NameTable) grow(n int) {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	if size <= len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]uint64, size)
	for _, e := range old {
		if e != 0 {
			x.place(e, x.hash(x.seed, x.Name(int(uint32(e))-1)))
		}
	}
}

// place puts slot value e, of a name of hash h, in the first empty slot
// from h's own.
func (x *NameTable) place(e, h uint64) {
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if x.slots[i] == 0 {
			x.slots[i] = e
			return
		}
	}
}

// Len is how many names the table holds.
func (x *NameTable) Len() int { return len(x.refs) }

// bytes is the name of id, its bytes in the arena (not a copy).
func (x *NameTable) bytes(id int32) []byte { return refBytes(x.blocks, x.refs[id]) }

// Name is the name of id (0 ≤ id < Len), the arena's bytes as a string.
func (x *NameTable) Name(id int) string {
	b := x.bytes(int32(id))
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// ID is name's id, if the table holds it.
func (x *NameTable) ID(name string) (int, bool) {
	h := x.hash(x.seed, name)
	tag, mask := h>>32, uint64(len(x.slots)-1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			return 0, false
		}
		if e>>32 == tag {
			if id := int32(uint32(e)) - 1; string(x.bytes(id)) == name {
				return int(id), true
			}
		}
	}
}

// Add gives name, which the table does not hold, the next id.
func (x *NameTable) Add(name string) int {
	id := int32(len(x.refs))
	r, blocks := names.put(name)
	x.blocks = blocks
	x.refs = append(x.refs, r)
	if len(x.refs)*4 > len(x.slots)*3 {
		x.grow(len(x.refs))
	}
	h := x.hash(x.seed, name)
	x.place(h>>32<<32|uint64(id+1), h)
	return int(id)
}
