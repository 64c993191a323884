package model

import (
	"hash/maphash"
	"unsafe"
)

// NameTable gives each name an id, 0, 1, 2… in the order they were added,
// and holds a million names with nothing the garbage collector follows: a
// map of the names' hashes to ids, and the names' bytes in the process's
// arena of names, off the heap (arena.go), each name found by offsets. (A
// map of strings was 1,000,000 pointers to mark at every collection, and
// the table of names as many again; issue 24.)
// Two names with one hash (of 32 bits: about 120 of a million names) are
// rare, never wrong: the second and any later one are kept in a map of
// strings of their own.
//
// A name, once added, is never written again: Name's strings are the
// arena's bytes, not copies, so a million of them point into a few
// mapped blocks, not at a million objects, and the collector passes them
// by. Names are never taken out: a holder whose names come and go makes a
// new table when most of the old one's are gone. Not safe for concurrent
// use.
type NameTable struct {
	seed   maphash.Seed
	hash   func(seed maphash.Seed, name string) uint64 // maphash.String; a test gives its own
	ids    map[uint32]int32                            // by the hash's low 32 bits: 8 bytes an entry, not 16
	more   map[string]int32                            // a name whose hash an earlier name holds
	blocks [][]byte                                    // the arena's blocks as of the last name added: they hold every name here
	refs   []nameRef                                   // each id's name
}

type nameRef struct{ block, off, n uint32 }

// nameBlock is the size of a block of the arena's names.
const nameBlock = 1 << 20

// NewNameTable is an empty table.
func NewNameTable() *NameTable {
	return &NameTable{seed: maphash.MakeSeed(), hash: maphash.String, ids: map[uint32]int32{}}
}

// Reserve makes room for n names in all.
func (x *NameTable) Reserve(n int) {
	if n > len(x.refs) && len(x.ids) == 0 {
		x.ids = make(map[uint32]int32, n)
		x.refs = make([]nameRef, 0, n)
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
	id, ok := x.ids[uint32(x.hash(x.seed, name))]
	if !ok {
		return 0, false
	}
	if string(x.bytes(id)) == name {
		return int(id), true
	}
	id, ok = x.more[name]
	return int(id), ok
}

// Add gives name, which the table does not hold, the next id.
func (x *NameTable) Add(name string) int {
	id := int32(len(x.refs))
	r, blocks := names.put(name)
	x.blocks = blocks
	x.refs = append(x.refs, r)
	h := uint32(x.hash(x.seed, name))
	if _, taken := x.ids[h]; taken {
		if x.more == nil {
			x.more = map[string]int32{}
		}
		x.more[x.Name(int(id))] = id // the arena's bytes: the caller's string is not kept
	} else {
		x.ids[h] = id
	}
	return int(id)
}
