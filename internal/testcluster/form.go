package testcluster

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// do runs one command against a node on a fresh connection.
func do(addr string, args ...string) (any, error) {
	conn, err := Dial(addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.Do(args...)
}

func doString(addr string, args ...string) (string, error) {
	conn, err := Dial(addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.String(args...)
}

// form gives every primary an even share of the slots, joins the nodes,
// attaches the replicas, and waits until every node agrees.
func (c *Cluster) form() error {
	p := c.opts.Primaries
	for i := 0; i < p; i++ {
		n := c.Nodes[i]
		id, err := doString(n.Addr(), "CLUSTER", "MYID")
		if err != nil {
			return fmt.Errorf("CLUSTER MYID on %s: %w", n.Addr(), err)
		}
		n.ID = id
		lo, hi := i*16384/p, (i+1)*16384/p-1
		if _, err := do(n.Addr(), "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			return fmt.Errorf("CLUSTER ADDSLOTSRANGE on %s: %w", n.Addr(), err)
		}
	}
	for _, n := range c.Nodes[1:] {
		if _, err := do(n.Addr(), "CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(c.Nodes[0].Port)); err != nil {
			return fmt.Errorf("CLUSTER MEET from %s: %w", n.Addr(), err)
		}
	}
	if err := c.waitFor(20*time.Second, "every node knowing every other", c.allKnown); err != nil {
		return err
	}
	for _, n := range c.Nodes[p:] {
		id, err := doString(n.Addr(), "CLUSTER", "MYID")
		if err != nil {
			return err
		}
		n.ID = id
		if _, err := do(n.Addr(), "CLUSTER", "REPLICATE", c.Nodes[n.Primary].ID); err != nil {
			return fmt.Errorf("CLUSTER REPLICATE on %s: %w", n.Addr(), err)
		}
	}
	return c.WaitHealthy(30 * time.Second)
}

func (c *Cluster) allKnown() error {
	for _, n := range c.Nodes {
		s, err := doString(n.Addr(), "CLUSTER", "NODES")
		if err != nil {
			return err
		}
		lines := strings.Count(strings.TrimSpace(s), "\n") + 1
		if lines < len(c.Nodes) || strings.Contains(s, "handshake") {
			return fmt.Errorf("%s knows %d of %d nodes", n.Addr(), lines, len(c.Nodes))
		}
	}
	return nil
}

// WaitHealthy waits until every running node reports cluster_state:ok, sees
// every slot owned by the same node, and every running replica's link is up.
func (c *Cluster) WaitHealthy(within time.Duration) error {
	return c.waitFor(within, "cluster_state:ok on every node", c.healthy)
}

func (c *Cluster) healthy() error {
	var want string
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		info, err := doString(n.Addr(), "CLUSTER", "INFO")
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_assigned:16384") {
			return fmt.Errorf("%s: cluster not ok", n.Addr())
		}
		v, err := do(n.Addr(), "CLUSTER", "SLOTS")
		if err != nil {
			return err
		}
		got := slotOwners(v)
		if want == "" {
			want = got
		} else if got != want {
			return fmt.Errorf("%s disagrees on slot owners", n.Addr())
		}
		repl, err := doString(n.Addr(), "INFO", "replication")
		if err != nil {
			return err
		}
		if strings.Contains(repl, "role:slave") && !strings.Contains(repl, "master_link_status:up") {
			return fmt.Errorf("%s: replica link not up", n.Addr())
		}
		if err := c.replicasOnline(n); err != nil {
			return err
		}
	}
	return nil
}

// replicasOnline: every running replica is online in n's CLUSTER SHARDS,
// where n answers it. Valkey calls a replica loading there until n learns
// by gossip that its replication offset is above 0, and clients (emqtop's
// --replicas among them) read from no replica until then.
func (c *Cluster) replicasOnline(n *Node) error {
	v, err := do(n.Addr(), "CLUSTER", "SHARDS")
	if err != nil {
		return nil // Redis 6 and the like: nothing to agree on
	}
	running := map[string]bool{}
	for _, m := range c.Nodes {
		running[m.ID] = m.Running()
	}
	shards, _ := v.([]any)
	for _, sh := range shards {
		nodes, _ := field(sh, "nodes").([]any)
		for _, nd := range nodes {
			id, _ := field(nd, "id").(string)
			role, _ := field(nd, "role").(string)
			health, _ := field(nd, "health").(string)
			if role == "replica" && running[id] && health != "online" {
				return fmt.Errorf("%s sees replica %.8s %s", n.Addr(), id, health)
			}
		}
	}
	return nil
}

// field reads a RESP2 map (a flat array of names and values).
func field(m any, name string) any {
	a, _ := m.([]any)
	for i := 0; i+1 < len(a); i += 2 {
		if k, _ := a[i].(string); k == name {
			return a[i+1]
		}
	}
	return nil
}

// slotOwners renders CLUSTER SLOTS as "start-end:port,..." sorted by start,
// so two nodes' views can be compared.
func slotOwners(v any) string {
	ranges, _ := v.([]any)
	parts := make([]string, 0, len(ranges))
	for _, r := range ranges {
		e, _ := r.([]any)
		if len(e) < 3 {
			continue
		}
		m, _ := e[2].([]any)
		if len(m) < 2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%v-%v:%v", e[0], e[1], m[1]))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (c *Cluster) waitFor(within time.Duration, what string, check func() error) error {
	deadline := time.Now().Add(within)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("waited %v for %s: %w", within, what, err)
}

// Kill kills node i with SIGKILL.
func (c *Cluster) Kill(i int) { c.Nodes[i].stop(syscall.SIGKILL) }

// Pause stops node i with SIGSTOP: its sockets stay open and nothing answers.
func (c *Cluster) Pause(i int) error { return c.signal(i, syscall.SIGSTOP) }

// Resume continues a paused node with SIGCONT.
func (c *Cluster) Resume(i int) error { return c.signal(i, syscall.SIGCONT) }

func (c *Cluster) signal(i int, sig syscall.Signal) error {
	n := c.Nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return errors.New("node not running")
	}
	return n.cmd.Process.Signal(sig)
}

// Restart kills node i if it runs and starts it again on the same port with
// the same cluster configuration file (its data is gone: nothing persists).
func (c *Cluster) Restart(i int) error {
	n := c.Nodes[i]
	n.stop(syscall.SIGKILL)
	if err := c.spawn(n); err != nil {
		return err
	}
	return waitPing(n.Addr(), 10*time.Second, func() bool { return !n.Running() })
}

// Owner is the index of the node that the first running node says owns slot.
func (c *Cluster) Owner(slot int) (int, error) {
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		v, err := do(n.Addr(), "CLUSTER", "SLOTS")
		if err != nil {
			continue
		}
		ranges, _ := v.([]any)
		for _, r := range ranges {
			e, _ := r.([]any)
			if len(e) < 3 {
				continue
			}
			lo, _ := e[0].(int64)
			hi, _ := e[1].(int64)
			m, _ := e[2].([]any)
			if int64(slot) < lo || int64(slot) > hi || len(m) < 2 {
				continue
			}
			port, _ := m[1].(int64)
			for j, x := range c.Nodes {
				if int64(x.Port) == port || (x.TLSPort != 0 && int64(x.TLSPort) == port) {
					return j, nil
				}
			}
		}
	}
	return -1, fmt.Errorf("no node owns slot %d", slot)
}

// MoveSlots migrates slots lo..hi, with their keys, from primary `from` to
// primary `to`, the way redis-cli --cluster reshard does: IMPORTING and
// MIGRATING, MIGRATE of every key in batches, then SETSLOT NODE everywhere.
func (c *Cluster) MoveSlots(from, to, lo, hi int) error {
	for s := lo; s <= hi; s++ {
		m, err := c.BeginMove(s, from, to)
		if err != nil {
			return err
		}
		if err := m.MigrateAll(); err != nil {
			return err
		}
		if err := m.Finish(); err != nil {
			return err
		}
	}
	return nil
}

// Move is one slot's live resharding, step by step, as the cluster
// specification gives it: IMPORTING on the target, MIGRATING on the
// source, MIGRATE of the keys, SETSLOT NODE everywhere. Between the steps
// the slot is split between two nodes, as a client meets it mid-move.
type Move struct {
	c        *Cluster
	slot     string
	src, dst *Node
}

// BeginMove marks slot as moving from node from to node to.
func (c *Cluster) BeginMove(slot, from, to int) (*Move, error) {
	m := &Move{c: c, slot: strconv.Itoa(slot), src: c.Nodes[from], dst: c.Nodes[to]}
	if _, err := do(m.dst.Addr(), "CLUSTER", "SETSLOT", m.slot, "IMPORTING", m.src.ID); err != nil {
		return nil, fmt.Errorf("slot %d IMPORTING on %s: %w", slot, m.dst.Addr(), err)
	}
	if _, err := do(m.src.Addr(), "CLUSTER", "SETSLOT", m.slot, "MIGRATING", m.dst.ID); err != nil {
		return nil, fmt.Errorf("slot %d MIGRATING on %s: %w", slot, m.src.Addr(), err)
	}
	return m, nil
}

// BeginMoveAway marks slot as moving from the primary that owns it (from)
// to the next primary (to), by their places in Nodes.
func (c *Cluster) BeginMoveAway(slot int) (m *Move, from, to int, err error) {
	if from, err = c.Owner(slot); err != nil {
		return nil, 0, 0, err
	}
	to = (from + 1) % c.opts.Primaries
	m, err = c.BeginMove(slot, from, to)
	return m, from, to, err
}

// Migrate moves the given keys of the slot to the target.
func (m *Move) Migrate(keys ...string) error {
	args := []string{"MIGRATE", "127.0.0.1", strconv.Itoa(m.dst.Port), "", "0", "10000", "REPLACE", "KEYS"}
	if _, err := do(m.src.Addr(), append(args, keys...)...); err != nil {
		return fmt.Errorf("MIGRATE slot %s: %w", m.slot, err)
	}
	return nil
}

// MigrateAll moves every key of the slot still on the source.
func (m *Move) MigrateAll() error {
	for {
		v, err := do(m.src.Addr(), "CLUSTER", "GETKEYSINSLOT", m.slot, "200")
		if err != nil {
			return err
		}
		keys, _ := v.([]any)
		if len(keys) == 0 {
			return nil
		}
		var ks []string
		for _, k := range keys {
			ks = append(ks, fmt.Sprint(k))
		}
		if err := m.Migrate(ks...); err != nil {
			return err
		}
	}
}

// Finish gives the slot to the target on both nodes, then on the others.
func (m *Move) Finish() error {
	for _, n := range []*Node{m.dst, m.src} {
		if _, err := do(n.Addr(), "CLUSTER", "SETSLOT", m.slot, "NODE", m.dst.ID); err != nil {
			return fmt.Errorf("slot %s NODE on %s: %w", m.slot, n.Addr(), err)
		}
	}
	for _, n := range m.c.Nodes {
		if n != m.src && n != m.dst && n.Primary < 0 && n.Running() {
			_, _ = do(n.Addr(), "CLUSTER", "SETSLOT", m.slot, "NODE", m.dst.ID)
		}
	}
	return nil
}

// WaitReplicated waits until every running replica has applied every
// write its primary had applied when it was called (replication is
// asynchronous: a replica read right after a write may not have it yet).
func (c *Cluster) WaitReplicated(within time.Duration) error {
	want := map[int]int64{}
	for i, n := range c.Nodes[:c.opts.Primaries] {
		if n.Running() {
			off, err := replOffset(n.Addr(), "master_repl_offset")
			if err != nil {
				return err
			}
			want[i] = off
		}
	}
	return c.waitFor(within, "every replica caught up with its primary", func() error {
		for _, n := range c.Nodes[c.opts.Primaries:] {
			w, ok := want[n.Primary]
			if !ok || !n.Running() {
				continue
			}
			got, err := replOffset(n.Addr(), "slave_repl_offset")
			if err != nil {
				return err
			}
			if got < w {
				return fmt.Errorf("%s at offset %d of %d", n.Addr(), got, w)
			}
		}
		return nil
	})
}

func replOffset(addr, name string) (int64, error) {
	info, err := doString(addr, "INFO", "replication")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: no %s in INFO replication", addr, name)
}
