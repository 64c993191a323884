package model

import (
	"sync"
	"sync/atomic"
)

// NodeRef is a node's address as a queue holds it: a number in a table of
// the addresses the process has seen, not a string. A million queues held
// a string each (16 bytes and a pointer for the collector to follow at
// every collection: 8 ms of a 115 ms collection at a million, measured by
// clearing them); a NodeRef is 2 bytes and nothing to follow. The zero
// NodeRef is no node ("").
type NodeRef uint16

// nodeAddrs is the table: written under its lock, read without one (the
// slice is replaced whole, never written once published). Addresses are
// never dropped: a cluster's nodes are a handful, their addresses over a
// day of failovers a few more.
var nodeAddrs struct {
	mu    sync.Mutex
	list  atomic.Pointer[[]string]
	index map[string]NodeRef
}

// NodeOf is addr's NodeRef, added to the table when new; "" is the zero
// NodeRef. Past 65,535 addresses in one process (never seen: a cluster's
// nodes are a handful) a new one is refused and the caller gets ok false.
func NodeOf(addr string) (ref NodeRef, ok bool) {
	if addr == "" {
		return 0, true
	}
	nodeAddrs.mu.Lock()
	defer nodeAddrs.mu.Unlock()
	if r, ok := nodeAddrs.index[addr]; ok {
		return r, true
	}
	old := nodeAddrs.list.Load()
	var list []string
	if old != nil {
		list = *old
	}
	if len(list) >= 1<<16-1 {
		return 0, false
	}
	if nodeAddrs.index == nil {
		nodeAddrs.index = map[string]NodeRef{}
	}
	next := append(list[:len(list):len(list)], addr)
	ref = NodeRef(len(next)) // 1 for the first: 0 is no node
	nodeAddrs.index[addr] = ref
	nodeAddrs.list.Store(&next)
	return ref, true
}

// RefOf is addr as a NodeRef; an address the table refuses (see NodeOf)
// is no node.
func RefOf(addr string) NodeRef {
	r, _ := NodeOf(addr)
	return r
}

// Addr is the node's address ("" for none).
func (r NodeRef) Addr() string {
	if r == 0 {
		return ""
	}
	list := nodeAddrs.list.Load()
	if list == nil || int(r) > len(*list) {
		return ""
	}
	return (*list)[r-1]
}

// String is Addr.
func (r NodeRef) String() string { return r.Addr() }
