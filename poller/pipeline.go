package poller

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// batch is one snapshot script: queues of one slot, read from one node.
type batch struct {
	// what a change-driven poll looks at in each of the plan's 16,384
	// batches (changed), first, in one cache line: the loop read two a
	// batch (settled and deadline were last), 1 ms a poll at a million
	slot uint16
	// what change-driven polling knows of the plan's batch between polls
	// (change.go): settled and deadline are kept on the plan's own; home
	// is the plan's own batch, for a copy of it a poll reads
	settled  bool // every queue has a reading that stands, none in detail
	hist     bool // some queue of the batch wants the lease histogram
	asking   bool
	deadline int64  // the first lease of its queues to run out (server ms); 0: none
	owner    string // the primary that owns the slot
	queues   []string
	idx      []int // each queue's index in the poll's queue list
	detail   []bool
	tags     []uint16 // the queues' tags, when a look asked (find)
	// cmd is the batch's script, built once and pinned so that later polls
	// of the same plan send it again without building it
	cmd  *valkey.Completed // send ASKING first (the slot is being imported there)
	home *batch
}

// nodePlan is everything one node is asked in one pipeline.
type nodePlan struct {
	addr    string
	primary bool
	scan    bool
	version bool
	batches []batch
}

// nodeResult is what a node answered.
type nodeResult struct {
	plan     nodePlan
	err      error
	latency  time.Duration
	nowMs    int64
	commands int
	scripts  int // the script calls sent (a grouped call reads several batches)
	trips    int
	rows     [][]*model.Queue // per batch, or nil with batchErr
	batchErr []error
	scanned  []string
	version  *string
}

// plan groups the queues by slot and node.
func (p *Poller) plan(topo *model.Topology, queues []string, clients map[string]valkey.Client, detail map[string]bool) []nodePlan {
	plans := map[string]*nodePlan{}
	get := func(addr string, primary bool) *nodePlan {
		np := plans[addr]
		if np == nil {
			np = &nodePlan{addr: addr, primary: primary}
			plans[addr] = np
		}
		return np
	}
	for _, i := range topo.Primaries() {
		np := get(topo.Nodes[i].Addr, true)
		np.scan = len(p.opt.Pinned) == 0
	}
	if p.opt.Replicas {
		// replicas are asked too, so their server version (and so whether
		// they may serve snapshots) and their health are known
		for _, n := range topo.Nodes {
			if n.Role == model.RoleReplica {
				get(n.Addr, false)
			}
		}
	}
	if o := topo.OwnerOf(keyspace.Slot(keyspace.VersionKey)); o != nil {
		get(o.Addr, true).version = true
	}
	// the queues by slot, in slots of first appearance and in their order
	// within a slot, counted into one array of indices: a map of growing
	// slices, and each batch's own appends, were twice the plan's size
	slotOf := p.slotsOf(queues)
	var count [keyspace.SlotCount]int32
	var slots []uint16
	for _, s := range slotOf {
		if count[s] == 0 {
			slots = append(slots, s)
		}
		count[s]++
	}
	// the queues in detail, by place: a look-up of each of the few, not
	// of each of a million names in the map (the list is sorted)
	inDetail := make([]bool, len(queues))
	for q, on := range detail {
		i, ok := slices.BinarySearch(queues, q)
		if !ok { // (a list out of order would miss it)
			i = slices.Index(queues, q)
		}
		if on && i >= 0 {
			inDetail[i] = true
		}
	}
	var at [keyspace.SlotCount]int32 // where each slot's indices begin in order
	n := int32(0)
	for _, s := range slots {
		at[s], n = n, n+count[s]
	}
	order := make([]int, len(queues))
	names := make([]string, len(queues))
	details := make([]bool, len(queues))
	for i, s := range slotOf {
		order[at[s]], names[at[s]] = i, queues[i]
		details[at[s]] = p.opt.DetailAll || inDetail[i]
		at[s]++
	}
	from := 0
	for _, s := range slots {
		owner := topo.OwnerOf(s)
		first := from
		from += int(count[s])
		if owner == nil {
			continue // assemble reports these as uncovered
		}
		addr := p.readNode(topo, owner, s, clients)
		np := get(addr, addr == owner.Addr)
		for lo := first; lo < from; lo += p.opt.QueuesPerScript {
			hi := min(from, lo+p.opt.QueuesPerScript)
			b := batch{slot: s, owner: owner.Addr, idx: order[lo:hi:hi],
				queues: names[lo:hi:hi], detail: details[lo:hi:hi]}
			for _, i := range order[lo:hi] {
				b.hist = b.hist || inDetail[i]
			}
			np.batches = append(np.batches, b)
		}
	}
	out := make([]nodePlan, 0, len(plans))
	for _, np := range plans {
		out = append(out, *np)
	}
	return out
}

// readNode picks where to read slot s from: a healthy replica of its owner
// when --replicas is on, the replica is Valkey 8 or newer (Redis 7 replicas
// serve incomplete data during a migration) and the slot is not migrating;
// otherwise the owner.
func (p *Poller) readNode(topo *model.Topology, owner *model.Node, s uint16, clients map[string]valkey.Client) string {
	if !p.opt.Replicas || topo.Migrating(s) {
		return owner.Addr
	}
	for _, i := range topo.ReplicasOf(owner.ID) {
		r := topo.Nodes[i]
		st := p.nodes[r.Addr]
		if r.Health != "online" || st == nil || st.err != "" || !replicaSafe(st.server) {
			continue
		}
		if _, ok := clients[r.Addr]; ok {
			return r.Addr
		}
	}
	return owner.Addr
}

// replicaSafe: Valkey 8+ replicas answer TRYAGAIN rather than serve a
// migrating slot with keys missing.
func replicaSafe(server string) bool {
	v, ok := strings.CutPrefix(server, "valkey ")
	if !ok {
		return false
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 8
}
