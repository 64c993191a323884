package poller

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// ReadTopology asks the servers who owns which slot: CLUSTER SHARDS, or
// CLUSTER SLOTS where SHARDS is missing, then each primary's own CLUSTER
// NODES line for slots in migration. A standalone server is one primary
// owning every slot.
func ReadTopology(ctx context.Context, c valkey.Client) (*model.Topology, error) {
	return readTopology(ctx, c, nil, 0)
}

// readTopology asks the nodes at once, those in down only when no other
// answers, so a dead, paused or hung node does not cost a timeout when
// another can answer. Each node is given per (0: ctx alone bounds the read).
func readTopology(ctx context.Context, c valkey.Client, down map[string]bool, per time.Duration) (*model.Topology, error) {
	nodeCtx := func() (context.Context, context.CancelFunc) {
		if per > 0 {
			return context.WithTimeout(ctx, per)
		}
		return context.WithCancel(ctx)
	}
	nodes := c.Nodes()
	addrs := make([]string, 0, len(nodes))
	for a := range nodes {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool {
		if down[addrs[i]] != down[addrs[j]] {
			return !down[addrs[i]]
		}
		return addrs[i] < addrs[j]
	})
	if c.Mode() != valkey.ClientModeCluster {
		n := model.Node{Addr: addrs[0], Role: model.RolePrimary, Health: "online",
			Slots: []model.Range{{Lo: 0, Hi: keyspace.SlotCount - 1}}}
		rctx, cancel := nodeCtx()
		defer cancel()
		if v, err := c.Do(rctx, c.B().Role().Build()).ToArray(); err == nil && len(v) > 0 {
			if r, _ := v[0].ToString(); r == "slave" {
				n.Role = model.RoleReplica
				n.Slots = nil
			}
		} else if err != nil && !isUnknownCommand(err) {
			return nil, fmt.Errorf("ROLE on %s: %w", n.Addr, err)
		}
		if n.Role == model.RoleReplica { // a lone replica still holds every key
			n.Role, n.Slots = model.RolePrimary, []model.Range{{Lo: 0, Hi: keyspace.SlotCount - 1}}
		}
		return model.NewTopology(false, []model.Node{n}), nil
	}
	list, err := firstShards(ctx, nodes, addrs, down, per)
	if err != nil {
		return nil, err
	}
	// each primary's migrations, all at once: a hung primary costs one
	// bounded wait, not one wait per node in turn (its slots' migrations
	// are then unknown, and it shows as not answering in the poll). The
	// wait is ours: valkey-go waits for a dial in progress whatever the
	// context says, and a hung node's dial lasts the dial timeout.
	mper := per / 2
	if mper <= 0 {
		mper = time.Minute // ctx alone bounds it
	}
	mctx, cancel := context.WithTimeout(ctx, mper)
	defer cancel()
	type migr struct {
		i     int
		slots []uint16
	}
	got := make(chan migr, len(list))
	asked := 0
	for i := range list {
		pc, ok := nodes[list[i].Addr]
		if list[i].Role != model.RolePrimary || down[list[i].Addr] || !ok {
			continue // a dead or paused node would cost a timeout
		}
		asked++
		go func(i int) { got <- migr{i, readMigrating(mctx, pc)} }(i)
	}
	for ; asked > 0; asked-- {
		select {
		case m := <-got:
			list[m.i].Migrating = m.slots
		case <-mctx.Done():
			return model.NewTopology(true, list), nil
		}
	}
	return model.NewTopology(true, list), nil
}

// firstShards asks the nodes for the slot map: those not known to be down
// all at once, and the first answer wins; the down ones only if none of
// the others answers. A hung node never holds the read past per.
func firstShards(ctx context.Context, nodes map[string]valkey.Client, addrs []string, down map[string]bool, per time.Duration) ([]model.Node, error) {
	var up, rest []string
	for _, a := range addrs {
		if down[a] {
			rest = append(rest, a)
		} else {
			up = append(up, a)
		}
	}
	var errs []error
	for _, group := range [][]string{up, rest} {
		if len(group) == 0 {
			continue
		}
		list, ok, gerrs := askShards(ctx, nodes, group, per)
		if ok {
			return list, nil
		}
		errs = append(errs, gerrs...)
	}
	return nil, fmt.Errorf("no node answered the topology: %w", errors.Join(errs...))
}

// askShards sends CLUSTER SHARDS (or SLOTS where SHARDS is unknown) to each
// of addrs at once and returns the first answer, or every error.
func askShards(ctx context.Context, nodes map[string]valkey.Client, addrs []string, per time.Duration) ([]model.Node, bool, []error) {
	type answer struct {
		list []model.Node
		err  error
	}
	gctx, cancel := context.WithCancel(ctx)
	defer cancel() // the first answer ends the others' calls
	answers := make(chan answer, len(addrs))
	for _, a := range addrs {
		go func(a string, nc valkey.Client) {
			nctx, ncancel := gctx, context.CancelFunc(func() {})
			if per > 0 {
				nctx, ncancel = context.WithTimeout(gctx, per)
			}
			defer ncancel()
			list, err := readShards(nctx, nc)
			if err != nil && isUnknownCommand(err) {
				list, err = readSlots(nctx, nc)
			}
			if err != nil {
				err = fmt.Errorf("%s: %w", a, err)
			}
			answers <- answer{knownHosts(list, a), err}
		}(a, nodes[a])
	}
	var timeout <-chan time.Time
	if per > 0 {
		t := time.NewTimer(per)
		defer t.Stop()
		timeout = t.C
	}
	var errs []error
	var stale []model.Node // an answer in the middle of a failover, kept in case no other comes
	for range addrs {
		select {
		case an := <-answers:
			switch {
			case an.err != nil:
				errs = append(errs, an.err)
			case settled(an.list):
				return an.list, true, nil
			case stale == nil:
				stale = an.list
			}
		case <-timeout:
			if stale != nil {
				return stale, true, nil
			}
			return nil, false, append(errs, fmt.Errorf("no answer within %v", per))
		case <-ctx.Done():
			return nil, false, append(errs, ctx.Err())
		}
	}
	if stale != nil {
		return stale, true, nil
	}
	return nil, false, errs
}

func isUnknownCommand(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "unknown subcommand") || strings.Contains(s, "unknown command")
}

// settled reports whether a topology has no failed primary that still owns
// slots: a node that answers so has not yet heard of the failover the
// others have seen (gossip reaches the nodes one by one), so the first
// answer is taken only when settled, else the next that is.
func settled(list []model.Node) bool {
	for _, n := range list {
		if n.Role == model.RolePrimary && n.Health == "fail" && len(n.Slots) > 0 {
			return false
		}
	}
	return true
}

// knownHosts gives a node listed with no host (":7000": a cluster node that
// never met another does not know its own address, and the cluster spec
// says an unknown endpoint is the one asked) the host of asked, the node
// that answered.
func knownHosts(list []model.Node, asked string) []model.Node {
	host, _, err := net.SplitHostPort(asked)
	if err != nil {
		return list
	}
	for i := range list {
		if h, port, err := net.SplitHostPort(list[i].Addr); err == nil && (h == "" || h == "?") {
			list[i].Addr = net.JoinHostPort(host, port)
		}
	}
	return list
}

func readShards(ctx context.Context, c valkey.Client) ([]model.Node, error) {
	shards, err := c.Do(ctx, c.B().ClusterShards().Build()).ToArray()
	if err != nil {
		return nil, err
	}
	var out []model.Node
	for _, sh := range shards {
		m, err := sh.AsMap()
		if err != nil {
			return nil, fmt.Errorf("CLUSTER SHARDS: %w", err)
		}
		slotsMsg := m["slots"]
		flat, _ := slotsMsg.AsIntSlice()
		var ranges []model.Range
		for i := 0; i+1 < len(flat); i += 2 {
			ranges = append(ranges, model.Range{Lo: uint16(flat[i]), Hi: uint16(flat[i+1])})
		}
		nodesMsg := m["nodes"]
		members, _ := nodesMsg.ToArray()
		var primaryID string
		var shardNodes []model.Node
		for _, nm := range members {
			f, err := nm.AsMap()
			if err != nil {
				continue
			}
			n := model.Node{ID: str(f["id"]), Health: str(f["health"])}
			host := str(f["ip"])
			if host == "" {
				host = str(f["endpoint"])
			}
			port := num(f["port"])
			if port == 0 {
				port = num(f["tls-port"])
			}
			n.Addr = net.JoinHostPort(host, strconv.FormatInt(port, 10))
			n.Role = model.RoleReplica
			if str(f["role"]) == "master" {
				n.Role = model.RolePrimary
			}
			if n.Health == "" {
				n.Health = "online"
			}
			shardNodes = append(shardNodes, n)
		}
		// The shard's primary owns its slots. After a failover Valkey lists
		// the dead primary in the shard still, role master, health fail,
		// beside the replica that took over: it is failed, not a primary,
		// for as long as it stays dead. A failed master is the primary
		// only while no other master of the shard is up (no failover yet).
		live := false
		for _, n := range shardNodes {
			live = live || (n.Role == model.RolePrimary && n.Health != "fail")
		}
		for i := range shardNodes {
			n := &shardNodes[i]
			switch {
			case n.Role != model.RolePrimary:
			case n.Health == "fail" && (live || len(ranges) == 0):
				n.Role = model.RoleFailed
			case primaryID == "":
				n.Slots, primaryID = ranges, n.ID
			} // a second master up in one shard (a moment in a failover): no slots of its own
		}
		for i := range shardNodes {
			if shardNodes[i].Role == model.RoleReplica {
				shardNodes[i].PrimaryID = primaryID
			}
		}
		out = append(out, shardNodes...)
	}
	return out, nil
}

func str(m valkey.ValkeyMessage) string {
	s, _ := m.ToString()
	return s
}

func num(m valkey.ValkeyMessage) int64 {
	if v, err := m.AsInt64(); err == nil {
		return v
	}
	return 0
}

func readSlots(ctx context.Context, c valkey.Client) ([]model.Node, error) {
	entries, err := c.Do(ctx, c.B().ClusterSlots().Build()).ToArray()
	if err != nil {
		return nil, err
	}
	byAddr := map[string]*model.Node{}
	var order []string
	add := func(n model.Node) *model.Node {
		if p, ok := byAddr[n.Addr]; ok {
			return p
		}
		byAddr[n.Addr] = &n
		order = append(order, n.Addr)
		return byAddr[n.Addr]
	}
	for _, e := range entries {
		f, err := e.ToArray()
		if err != nil || len(f) < 3 {
			continue
		}
		lo, hi := num(f[0]), num(f[1])
		var primaryID string
		for i, m := range f[2:] {
			nf, err := m.ToArray()
			if err != nil || len(nf) < 2 {
				continue
			}
			n := model.Node{Addr: net.JoinHostPort(str(nf[0]), strconv.FormatInt(num(nf[1]), 10)), Health: "online"}
			if len(nf) > 2 {
				n.ID = str(nf[2])
			}
			if i == 0 {
				n.Role, primaryID = model.RolePrimary, n.ID
				p := add(n)
				p.Slots = append(p.Slots, model.Range{Lo: uint16(lo), Hi: uint16(hi)})
			} else {
				n.Role, n.PrimaryID = model.RoleReplica, primaryID
				add(n)
			}
		}
	}
	out := make([]model.Node, 0, len(order))
	for _, a := range order {
		n := *byAddr[a]
		sort.Slice(n.Slots, func(i, j int) bool { return n.Slots[i].Lo < n.Slots[j].Lo })
		out = append(out, n)
	}
	return out, nil
}

// readMigrating reads the slots a primary is migrating or importing from its
// own line of CLUSTER NODES ("[5461->-id]" or "[5461-<-id]").
func readMigrating(ctx context.Context, c valkey.Client) []uint16 {
	s, err := c.Do(ctx, c.B().ClusterNodes().Build()).ToString()
	if err != nil {
		return nil
	}
	var out []uint16
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(f[2], "myself") {
			continue
		}
		if len(f) < 9 {
			continue
		}
		for _, tok := range f[8:] {
			if !strings.HasPrefix(tok, "[") {
				continue
			}
			digits := strings.TrimLeft(tok, "[")
			if i := strings.IndexByte(digits, '-'); i > 0 {
				if v, err := strconv.Atoi(digits[:i]); err == nil && v >= 0 && v < keyspace.SlotCount {
					out = append(out, uint16(v))
				}
			}
		}
	}
	return out
}
