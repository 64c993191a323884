// Package testcluster starts real Valkey or Redis servers on free loopback
// ports: one standalone server, or primaries with replicas formed into a
// cluster. The tests use it, and so does `emqtop demo`. It needs nothing but
// the standard library and a server binary.
package testcluster

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options describe what to start.
type Options struct {
	// Primaries is the number of primaries; 0 starts one standalone server.
	Primaries int
	// Replicas is the number of replicas of each primary.
	Replicas int
	// NodeTimeout is cluster-node-timeout; 0 means 2s.
	NodeTimeout time.Duration
	// Dir is where the servers' files go; "" makes a temporary directory
	// that Close removes.
	Dir string
	// Extra lines appended to every server's configuration.
	Extra []string
	// TLS, when set, gives every node a TLS port beside its plain one (the
	// helpers keep using the plain port) and turns on TLS for the cluster
	// bus and replication.
	TLS *TLSFiles
}

// TLSFiles are the PEM files of a TLS setup.
type TLSFiles struct{ Cert, Key, CA string }

// Node is one server process.
type Node struct {
	Port    int
	TLSPort int    // 0 without TLS
	ID      string // cluster node id; "" for a standalone server
	Primary int    // index of its primary in Cluster.Nodes; -1 for a primary
	conf    string
	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
}

// Addr is the node's host:port.
func (n *Node) Addr() string { return "127.0.0.1:" + strconv.Itoa(n.Port) }

// TLSAddr is the node's TLS host:port.
func (n *Node) TLSAddr() string { return "127.0.0.1:" + strconv.Itoa(n.TLSPort) }

// TLSAddrs are the TLS addresses of every node.
func (c *Cluster) TLSAddrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.TLSAddr()
	}
	return out
}

// Cluster is what Start started.
type Cluster struct {
	Binary  string
	Nodes   []*Node // primaries first, then the replicas
	opts    Options
	dir     string
	ownDir  bool
	closing sync.Once
}

// Start starts the servers and returns when they are ready: a standalone
// server answers PING; a cluster reports cluster_state:ok on every node and
// every node agrees on who owns every slot.
func Start(opts Options) (*Cluster, error) {
	bin, err := FindServer()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Binary: bin, opts: opts, dir: opts.Dir}
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "emqtop-cluster-"); err != nil {
			return nil, err
		}
		c.ownDir = true
	}
	if err := c.start(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start() error {
	total := 1
	if c.opts.Primaries > 0 {
		total = c.opts.Primaries * (1 + c.opts.Replicas)
	}
	ports, err := freePorts(total, c.opts.Primaries > 0)
	if err != nil {
		return err
	}
	var tlsPorts []int
	if c.opts.TLS != nil {
		if tlsPorts, err = freePorts(total, false); err != nil {
			return err
		}
	}
	for i, port := range ports {
		n := &Node{Port: port, Primary: -1}
		if tlsPorts != nil {
			n.TLSPort = tlsPorts[i]
		}
		if c.opts.Primaries > 0 && i >= c.opts.Primaries {
			n.Primary = (i - c.opts.Primaries) % c.opts.Primaries
		}
		c.Nodes = append(c.Nodes, n)
	}
	for _, n := range c.Nodes {
		if err := c.writeConfig(n); err != nil {
			return err
		}
		if err := c.spawn(n); err != nil {
			return err
		}
	}
	for _, n := range c.Nodes {
		if err := c.waitUp(n); err != nil {
			return err
		}
	}
	if c.opts.Primaries == 0 {
		return nil
	}
	return c.form()
}

func (c *Cluster) config(port, tlsPort int) string {
	timeout := c.opts.NodeTimeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	lines := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir " + c.dir,
		`save ""`,
		"appendonly no",
		"daemonize no",
		"logfile " + filepath.Join(c.dir, fmt.Sprintf("node-%d.log", port)),
		"dbfilename dump-" + strconv.Itoa(port) + ".rdb",
	}
	if c.opts.Primaries > 0 {
		lines = append(lines,
			"cluster-enabled yes",
			"cluster-config-file "+filepath.Join(c.dir, fmt.Sprintf("nodes-%d.conf", port)),
			"cluster-node-timeout "+strconv.FormatInt(timeout.Milliseconds(), 10),
			"cluster-require-full-coverage no",
			// a replica's offset reaches the others by gossip only once it
			// is above 0; CLUSTER SHARDS calls it loading until then
			"repl-ping-replica-period 1",
		)
	}
	if t := c.opts.TLS; t != nil {
		lines = append(lines, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+t.Cert, "tls-key-file "+t.Key,
			"tls-ca-cert-file "+t.CA, "tls-auth-clients no", "tls-replication yes")
		if c.opts.Primaries > 0 {
			// the bus stays plain; clients are told the TLS port
			lines = append(lines, "cluster-announce-port "+strconv.Itoa(tlsPort), "cluster-announce-tls-port "+strconv.Itoa(tlsPort))
		}
	}
	lines = append(lines, c.opts.Extra...)
	return strings.Join(lines, "\n") + "\n"
}

func (c *Cluster) writeConfig(n *Node) error {
	n.conf = filepath.Join(c.dir, fmt.Sprintf("node-%d.conf", n.Port))
	return os.WriteFile(n.conf, []byte(c.config(n.Port, n.TLSPort)), 0o600)
}

// waitUp waits for a node to answer PING. A port found free can be taken by
// another process before the server binds it (other test packages start
// servers at the same time): a server that exits because its port is in
// use is started again on other free ports, which no other node knows yet.
func (c *Cluster) waitUp(n *Node) error {
	for attempt := 0; ; attempt++ {
		err := waitPing(n.Addr(), 10*time.Second, func() bool { return !n.Running() })
		if err == nil {
			return nil
		}
		log := c.logTail(n)
		if attempt == 4 || !strings.Contains(log, "Address already in use") {
			return fmt.Errorf("server %s did not come up: %w (log: %s)", n.Addr(), err, log)
		}
		n.stop(syscall.SIGKILL)
		ports, perr := freePorts(2, c.opts.Primaries > 0)
		if perr != nil {
			return perr
		}
		n.Port = ports[0]
		if n.TLSPort != 0 {
			n.TLSPort = ports[1]
		}
		if err := c.writeConfig(n); err != nil {
			return err
		}
		if err := c.spawn(n); err != nil {
			return err
		}
	}
}

func (c *Cluster) spawn(n *Node) error {
	cmd := exec.Command(c.Binary, n.conf)
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", c.Binary, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	n.mu.Lock()
	n.cmd, n.done = cmd, done
	n.mu.Unlock()
	return nil
}

func (c *Cluster) logTail(n *Node) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("node-%d.log", n.Port)))
	if len(b) > 600 {
		b = b[len(b)-600:]
	}
	return strings.TrimSpace(string(b))
}

// Addrs are the addresses of every node, primaries first.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr()
	}
	return out
}

// Dir is where the servers keep their files.
func (c *Cluster) Dir() string { return c.dir }

// Close stops every process it started and removes the directory it made.
func (c *Cluster) Close() {
	c.closing.Do(func() {
		for _, n := range c.Nodes {
			n.stop(syscall.SIGKILL)
		}
		if c.ownDir {
			_ = os.RemoveAll(c.dir)
		}
	})
}

func (n *Node) stop(sig syscall.Signal) {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGCONT) // a paused node must be able to die
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// Running reports whether the node's process is alive.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.done == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// PID is the node's process id, 0 when it is not running.
func (n *Node) PID() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

// freePorts finds n loopback ports that are free; for a cluster, port+10000
// (the bus) must be free too.
func freePorts(n int, bus bool) ([]int, error) {
	seen := map[int]bool{}
	var out []int
	// below Linux's ephemeral range (32768 up), with the bus port too, so a
	// client's outgoing connection never takes a port chosen here
	for tries := 0; len(out) < n && tries < 2000; tries++ {
		p := 10000 + rand.IntN(12700)
		if seen[p] || !portFree(p) || (bus && !portFree(p+10000)) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	if len(out) < n {
		return nil, errors.New("could not find free loopback ports")
	}
	return out, nil
}

func portFree(p int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// waitPing waits for addr to answer PING, and gives up early once gone
// reports that the server's process has ended.
func waitPing(addr string, within time.Duration, gone func() bool) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		if gone != nil && gone() {
			return fmt.Errorf("the server exited (%v)", last)
		}
		conn, err := Dial(addr)
		if err == nil {
			// whatever holds the port may never answer
			conn.SetTimeout(500 * time.Millisecond)
			_, err = conn.String("PING")
			conn.Close()
			if err == nil {
				return nil
			}
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	return last
}
