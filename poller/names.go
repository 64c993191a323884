package poller

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"sync"

	"github.com/echomq/emqtop/model"
)

// names holds every queue name discovery has found, each once, for all
// the nodes: a node's sets are of ids into it, and the list's names are
// its strings, so a million names are a few blocks of bytes, not a million
// strings for the collector to mark, and a name seen again by a later pass
// is the same string, not a new copy (each pass cloned every name anew).
// The nodes' pages are taken in goroutines of their own: mu guards it.
type names struct {
	mu sync.Mutex
	t  *model.NameTable
	// added: the names a pass found that its node did not know, each with
	// the node it was found on, since the list was last made (queues): a
	// list with only these more is the last one with them put in
	added   []string
	addedOn []string
}

// mostAdded is the most names kept as added between two lists: a first
// pass adds every name (a million), which a sort makes a list of at
// least as well, without the two lists of what was added (32 MB at the
// peak of --watch's first line at a million).
const mostAdded = 4096

// intern is name's id, added when new; the caller holds mu.
func (n *names) intern(name string) int {
	if n.t == nil {
		n.t = model.NewNameTable()
	}
	if id, ok := n.t.ID(name); ok {
		return id
	}
	return n.t.Add(name)
}

// renew makes a new table of the names the nodes' sets hold and moves the
// sets to it, when the table holds more than twice as many (queues come
// and go, and a name is never taken out of a table): the old table's
// strings stay whole while anything holds them. The caller holds mu, and
// no page is being taken.
func (n *names) renew(nodes map[string]*nodeState) {
	if n.t == nil {
		return
	}
	live := 0
	for _, st := range nodes {
		live += st.known.len() + st.passSeen.len()
	}
	if n.t.Len() <= 2*live+4096 {
		return
	}
	old, fresh := n.t, model.NewNameTable()
	n.t = fresh
	for _, st := range nodes {
		for _, set := range []*idSet{st.known, st.passSeen} {
			if set == nil {
				continue
			}
			var moved idSet
			set.each(func(id int) { moved.add(n.intern(old.Name(id))) })
			*set = moved
		}
	}
}

// idSet is a set of names' ids: a bit an id.
type idSet struct {
	bits []uint64
	n    int
}

func (s *idSet) len() int {
	if s == nil {
		return 0
	}
	return s.n
}

func (s *idSet) has(id int) bool {
	if s == nil {
		return false
	}
	w := id >> 6
	return w < len(s.bits) && s.bits[w]&(1<<(id&63)) != 0
}

// add puts id in the set, and reports whether it was not there.
func (s *idSet) add(id int) bool {
	w := id >> 6
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits)+len(s.bits)/4)...)
	}
	if s.bits[w]&(1<<(id&63)) != 0 {
		return false
	}
	s.bits[w] |= 1 << (id & 63)
	s.n++
	return true
}

// each calls f with each id, ascending.
func (s *idSet) each(f func(id int)) {
	if s == nil {
		return
	}
	for w, b := range s.bits {
		for ; b != 0; b &= b - 1 {
			f(w<<6 + bits.TrailingZeros64(b))
		}
	}
}

// hasName is slices.Contains(names, q), each name's length and last byte
// looked at before its bytes: the queues of one slot often share all but
// their last bytes (tenant-0041, tenant-0042), and a dirty slot's batch is
// every queue of it against each queue written, a thousand slots a poll.
func hasName(names []string, q string) bool {
	n := len(q)
	if n == 0 {
		return slices.Contains(names, q)
	}
	last := q[n-1]
	for _, s := range names {
		if len(s) == n && s[n-1] == last && s == q {
			return true
		}
	}
	return false
}

// find is the place of queue q in the batch, found by a 16-bit tag of each
// name (made at the first look, on the plan's own batch, and kept with it):
// two cache lines of tags and one name read, where a binary search of a
// slot's 61 names (a million queues) read six names, each a cache miss, and
// was the poll's largest cost of its own. A tag shared is never a wrong
// answer: the name is compared.
func (b *batch) find(q string) (int, bool) {
	if len(b.tags) != len(b.queues) {
		b.tags = make([]uint16, len(b.queues))
		for k, n := range b.queues {
			b.tags[k] = nameTag(n)
		}
	}
	t := nameTag(q)
	for k, x := range b.tags {
		if x == t && b.queues[k] == q {
			return k, true
		}
	}
	return 0, false
}

// nameTag is a name's tag (find); a test gives one tag to every name.
var nameTag = func(s string) uint16 { return uint16(maphash.String(tagSeed, s)) }

var tagSeed = maphash.MakeSeed()
