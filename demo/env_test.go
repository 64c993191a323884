package demo

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/poller"
)

// TestEmbeddedDemo: the embedded demo serves, through the poller, a
// snapshot with queues, active jobs and an expired lease, and soon jobs of
// the workload itself are stuck (how soon is logged).
func TestEmbeddedDemo(t *testing.T) {
	start := time.Now()
	e, err := Start(EnvOptions{Embedded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := SeedOddities(ctx, e.Client); err != nil {
		t.Fatal(err)
	}
	w := New(e.Client, DemoConfig(1))
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	c, err := poller.Connect(poller.Config{Addrs: e.Addrs, Standalone: true, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := poller.New(c, poller.Options{})
	defer p.Close()
	var queues int
	var active, expired, workloadExpired int64
	// the demo shows queues, active and stuck jobs, some of dead workers:
	// waited for (how soon is the log's, not an assertion under load)
	vtest.Within(time.Minute, func() bool {
		s, err := p.Poll(ctx)
		if err != nil {
			t.Fatal(err)
		}
		queues = s.Queues.Len()
		_, active, expired = s.Totals()
		workloadExpired = 0
		for _, q := range s.Queues.All() {
			if q.Name != "legacy-import" {
				workloadExpired += q.Expired
			}
		}
		return queues > 0 && active > 0 && expired > 0 && workloadExpired > 0
	})
	t.Logf("after %v: %d queues, %d active, %d expired (%d from dead workers)", time.Since(start).Round(time.Millisecond), queues, active, expired, workloadExpired)
	if workloadExpired == 0 {
		t.Error("no worker of the workload died holding a job within 20s")
	}
	if err := w.LastError(); err != nil {
		t.Errorf("workload error on the embedded server: %v", err)
	}
}

// TestClusterDemoTeardown: the cluster demo leaves no process and no
// directory behind.
func TestClusterDemoTeardown(t *testing.T) {
	e, err := Start(EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Embedded || len(e.Addrs) != 3 {
		t.Fatalf("not a 3-primary cluster: %+v", e.Addrs)
	}
	var pids []int
	for _, n := range e.Cluster.Nodes {
		pids = append(pids, n.PID())
	}
	dir := e.Cluster.Dir()
	e.Close()
	for _, pid := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status"); err == nil && !strings.Contains(string(b), "zombie") {
			t.Errorf("server %d still runs", pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left behind", dir)
	}
}
