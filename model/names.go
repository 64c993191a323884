package model

import "hash/maphash"

// nameIndex gives each name an id, 0, 1, 2… in the order they were added,
// and holds a million names with nothing the garbage collector follows: a
// map of the names' hashes to ids, and the names' bytes in blocks, each
// name found by offsets. (A map of strings was 1,000,000 pointers to mark
// at every collection, and the table of names as many again; issue 24.)
// Two names with one hash are rare, never wrong: the second and any later
// one are kept in a map of strings of their own.
type nameIndex struct {
	seed   maphash.Seed
	hash   func(seed maphash.Seed, name string) uint64 // maphash.String; a test gives its own
	ids    map[uint64]int32
	more   map[string]int32 // a name whose hash an earlier name holds
	blocks [][]byte
	refs   []nameRef // each id's name
}

type nameRef struct{ block, off, n uint32 }

// nameBlock is the size of a block of names' bytes.
const nameBlock = 1 << 20

func newNameIndex() nameIndex {
	return nameIndex{seed: maphash.MakeSeed(), hash: maphash.String, ids: map[uint64]int32{}}
}

// reserve makes room for n names in all.
func (x *nameIndex) reserve(n int) {
	if more := n - len(x.refs); more > 0 && len(x.ids) == 0 {
		x.ids = make(map[uint64]int32, n)
		x.refs = make([]nameRef, 0, n)
	}
}

// len is how many names the index holds.
func (x *nameIndex) len() int { return len(x.refs) }

// name is the name of id, its bytes in the index's block (not a copy).
func (x *nameIndex) name(id int32) []byte {
	r := x.refs[id]
	return x.blocks[r.block][r.off : r.off+r.n]
}

// id is name's id, if the index holds it.
func (x *nameIndex) id(name string) (int, bool) {
	id, ok := x.ids[x.hash(x.seed, name)]
	if !ok {
		return 0, false
	}
	if string(x.name(id)) == name {
		return int(id), true
	}
	id, ok = x.more[name]
	return int(id), ok
}

// add gives name, which the index does not hold, the next id.
func (x *nameIndex) add(name string) int {
	id := int32(len(x.refs))
	h := x.hash(x.seed, name)
	if _, taken := x.ids[h]; taken {
		if x.more == nil {
			x.more = map[string]int32{}
		}
		x.more[name] = id
	} else {
		x.ids[h] = id
	}
	n := len(x.blocks)
	if n == 0 || len(x.blocks[n-1])+len(name) > cap(x.blocks[n-1]) {
		x.blocks = append(x.blocks, make([]byte, 0, max(nameBlock, len(name))))
		n++
	}
	b := &x.blocks[n-1]
	x.refs = append(x.refs, nameRef{block: uint32(n - 1), off: uint32(len(*b)), n: uint32(len(name))})
	*b = append(*b, name...)
	return int(id)
}
