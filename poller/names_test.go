package poller

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/echomq/emqtop/model"
)

func setNames(n *names, s *idSet) []string {
	var out []string
	s.each(func(id int) { out = append(out, n.t.Name(id)) })
	slices.Sort(out)
	return out
}

// A name seen again is the same id and the same string; once the nodes'
// sets hold under half of what the table does, a new table holds just
// theirs, the sets name what they did, and a string from the old table
// is whole.
func TestNamesRenew(t *testing.T) {
	var n names
	a, b := &nodeState{known: &idSet{}, passSeen: &idSet{}}, &nodeState{passSeen: &idSet{}}
	nodes := map[string]*nodeState{"a": a, "b": b}
	var first string
	for i := range 20000 {
		id := n.intern(fmt.Sprintf("q-%05d", i))
		if i == 0 {
			first = n.t.Name(id)
		}
		if i%100 == 0 {
			a.known.add(id)
		}
		if i%1000 == 1 {
			b.passSeen.add(id)
		}
	}
	if id := n.intern("q-00000"); unsafe.StringData(n.t.Name(id)) != unsafe.StringData(first) {
		t.Fatal("a name interned again is another string")
	}
	wantA, wantB := setNames(&n, a.known), setNames(&n, b.passSeen)
	n.renew(nodes)
	if n.t.Len() != 200+20 {
		t.Errorf("the new table holds %d names, want the sets' 220", n.t.Len())
	}
	if got := setNames(&n, a.known); !slices.Equal(got, wantA) {
		t.Errorf("a's set after: %d names, want %d", len(got), len(wantA))
	}
	if got := setNames(&n, b.passSeen); !slices.Equal(got, wantB) {
		t.Errorf("b's set after: %v, want %v", got, wantB)
	}
	if a.known.len() != 200 || b.passSeen.len() != 20 || a.passSeen.len() != 0 || b.known != nil {
		t.Errorf("sizes after: %d %d %d, b known %v", a.known.len(), b.passSeen.len(), a.passSeen.len(), b.known)
	}
	if first != "q-00000" {
		t.Errorf("the old table's string is now %q", first)
	}
	before := n.t
	n.renew(nodes) // all the table holds is in the sets: kept
	if n.t != before {
		t.Error("a table the sets fill was made again")
	}
}

// An id set says what it holds, counts each id once, and yields ids in
// order, however far apart.
func TestIDSet(t *testing.T) {
	var s idSet
	ids := []int{0, 63, 64, 5000, 1 << 20, 7}
	for _, id := range ids {
		if !s.add(id) {
			t.Errorf("%d was there before", id)
		}
	}
	if s.add(63) || s.len() != len(ids) {
		t.Errorf("63 twice: len %d", s.len())
	}
	var got []int
	s.each(func(id int) { got = append(got, id) })
	slices.Sort(ids)
	if !slices.Equal(got, ids) {
		t.Errorf("each: %v, want %v", got, ids)
	}
	if s.has(65) || s.has(1<<21) || !s.has(5000) {
		t.Error("has")
	}
	var none *idSet
	if none.has(1) || none.len() != 0 {
		t.Error("a nil set holds something")
	}
}

// hasName is slices.Contains whatever the names share.
func TestHasName(t *testing.T) {
	names := []string{"tenant-0041", "tenant-0042", "t1", "", "ténant-é"}
	for _, q := range []string{"tenant-0041", "tenant-0042", "tenant-0043", "tenant-1042", "t1", "", "ténant-é", "ténant-e", "tenant-004", "x"} {
		if got, want := hasName(names, q), slices.Contains(names, q); got != want {
			t.Errorf("hasName(%q) = %v, not %v", q, got, want)
		}
		if hasName(names[:2], q) != slices.Contains(names[:2], q) || hasName(nil, q) {
			t.Errorf("hasName(%q) differs on fewer names", q)
		}
	}
}

// A settled batch written to reads the queues written alone, found by
// their tags, whether the batch is in name order or not (--queues lists
// them in its own): the same queues either way.
func TestReasonFindsTheQueuesWritten(t *testing.T) {
	p := New(nil, Options{})
	names := []string{"a-01", "a-02", "a-03", "b-10", "b-11"}
	for _, c := range []struct {
		written []string
		why     string
		part    []int // places in name order
	}{
		{[]string{"a-02"}, model.ReadDirty, []int{1}},
		{[]string{"b-11", "a-01"}, model.ReadDirty, []int{0, 4}},
		{[]string{"zz-9"}, "", nil},
		{[]string{"b-10", "a-03", "a-01", "b-11", "a-02"}, model.ReadDirty, nil}, // all of it: no part
	} {
		for _, byName := range []bool{false, true} {
			order, want := slices.Clone(names), c.part
			if !byName { // reversed: place k holds name 4-k
				slices.Reverse(order)
				want = nil
				for _, k := range slices.Backward(c.part) {
					want = append(want, 4-k)
				}
			}
			home := &batch{slot: 7, queues: order, idx: []int{0, 1, 2, 3, 4}, detail: make([]bool, 5), settled: true}
			p.ch.needQ = map[uint16][]string{7: c.written}
			b := *home // as changed makes it: a copy of the plan's own batch
			b.home = home
			if why, part := p.reason(b, false, 1000); why != c.why || !slices.Equal(part, want) {
				t.Errorf("written %v, in name order %v: %q %v, not %q %v", c.written, byName, why, part, c.why, want)
			}
		}
	}
}

// A batch finds each of its queues at its place, and no queue it does not
// hold, with the real tags and with one tag for every name (each a
// candidate, the name compared); its tags are made once, at the first look.
func TestBatchFindsByTag(t *testing.T) {
	orig := nameTag
	defer func() { nameTag = orig }()
	for what, tag := range map[string]func(string) uint16{"real tags": orig, "one tag": func(string) uint16 { return 7 }} {
		nameTag = tag
		b := &batch{}
		for i := range 61 {
			b.queues = append(b.queues, fmt.Sprintf("tenant-%04d", i*3))
		}
		for k, q := range b.queues {
			if got, ok := b.find(q); !ok || got != k {
				t.Errorf("%s: %s found at %d (%v), want %d", what, q, got, ok, k)
			}
		}
		tags := &b.tags[0]
		for _, q := range []string{"tenant-0001", "tenant-0180x", "", "tenant-018"} {
			if k, ok := b.find(q); ok {
				t.Errorf("%s: %q found at %d, not in the batch", what, q, k)
			}
		}
		if &b.tags[0] != tags {
			t.Errorf("%s: the tags were made again", what)
		}
	}
}
