// Package model holds plain data: the cluster's topology, snapshots of
// queues and jobs, and pure derivations from them (heatmap bins, lease
// timeline buckets, sorting, filtering). It draws nothing and talks to no
// server.
package model

import (
	"fmt"
	"sort"

	"github.com/echomq/emqtop/keyspace"
)

// Roles of a node.
const (
	RolePrimary = "primary"
	RoleReplica = "replica"
	// RoleFailed is a primary the cluster marks failed that owns no slot
	// (a replica took its slots over): a down node, not a primary.
	RoleFailed = "failed"
)

// Range is an inclusive range of slots.
type Range struct{ Lo, Hi uint16 }

// Len is the number of slots in the range.
func (r Range) Len() int { return int(r.Hi) - int(r.Lo) + 1 }

func (r Range) String() string {
	if r.Lo == r.Hi {
		return fmt.Sprint(r.Lo)
	}
	return fmt.Sprintf("%d–%d", r.Lo, r.Hi)
}

// Node is one server of the topology.
type Node struct {
	ID        string   // cluster node id; "" on a standalone server
	Addr      string   // host:port
	Role      string   // RolePrimary, RoleReplica or RoleFailed
	Health    string   // online, fail, loading, ... ("online" when unknown)
	PrimaryID string   // for a replica, its primary's id
	Slots     []Range  // for a primary, the slots it owns
	Migrating []uint16 // slots this primary is migrating away or importing
}

// SlotCount is how many slots the node owns.
func (n Node) SlotCount() int {
	c := 0
	for _, r := range n.Slots {
		c += r.Len()
	}
	return c
}

// Topology is who owns which slot.
type Topology struct {
	Cluster bool   // false for a standalone server
	Nodes   []Node // primaries first, in slot order, each followed by nothing; replicas after
	// Owner maps a slot to the index in Nodes of the primary that owns it,
	// or -1 when no node covers it.
	Owner [keyspace.SlotCount]int16
}

// NewTopology builds the slot map from a list of nodes: primaries sorted by
// their first slot, replicas after them by address.
func NewTopology(cluster bool, nodes []Node) *Topology {
	sort.SliceStable(nodes, func(i, j int) bool {
		a, b := nodes[i], nodes[j]
		if (a.Role == RolePrimary) != (b.Role == RolePrimary) {
			return a.Role == RolePrimary
		}
		return firstSlot(a) < firstSlot(b) || (firstSlot(a) == firstSlot(b) && a.Addr < b.Addr)
	})
	t := &Topology{Cluster: cluster, Nodes: nodes}
	for i := range t.Owner {
		t.Owner[i] = -1
	}
	for i, n := range nodes {
		if n.Role != RolePrimary {
			continue
		}
		for _, r := range n.Slots {
			for s := int(r.Lo); s <= int(r.Hi); s++ {
				t.Owner[s] = int16(i)
			}
		}
	}
	return t
}

func firstSlot(n Node) int {
	if len(n.Slots) == 0 {
		return keyspace.SlotCount
	}
	return int(n.Slots[0].Lo)
}

// OwnerOf is the primary that owns slot, or nil.
func (t *Topology) OwnerOf(slot uint16) *Node {
	if i := t.Owner[slot]; i >= 0 {
		return &t.Nodes[i]
	}
	return nil
}

// Uncovered counts the slots no node covers.
func (t *Topology) Uncovered() int {
	c := 0
	for _, o := range t.Owner {
		if o < 0 {
			c++
		}
	}
	return c
}

// Primaries are the indexes of the primaries in Nodes.
func (t *Topology) Primaries() []int {
	var out []int
	for i, n := range t.Nodes {
		if n.Role == RolePrimary {
			out = append(out, i)
		}
	}
	return out
}

// ReplicasOf are the indexes of the replicas of the primary with id.
func (t *Topology) ReplicasOf(id string) []int {
	var out []int
	for i, n := range t.Nodes {
		if n.Role == RoleReplica && id != "" && n.PrimaryID == id {
			out = append(out, i)
		}
	}
	return out
}

// Migrating reports whether slot is being moved, as its owner shows it.
func (t *Topology) Migrating(slot uint16) bool {
	for _, n := range t.Nodes {
		for _, s := range n.Migrating {
			if s == slot {
				return true
			}
		}
	}
	return false
}

// Ranges compresses a sorted slot list into ranges.
func Ranges(slots []uint16) []Range {
	var out []Range
	for _, s := range slots {
		if n := len(out); n > 0 && out[n-1].Hi+1 == s {
			out[n-1].Hi = s
			continue
		}
		out = append(out, Range{s, s})
	}
	return out
}
