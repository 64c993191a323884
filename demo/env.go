package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/keyspace"
)

// Env is a demo's servers: a local cluster the demo started, or the
// embedded in-process server. It never touches a server it did not start.
type Env struct {
	Embedded bool
	Addrs    []string
	Cluster  *testcluster.Cluster // nil when embedded
	mini     *miniredis.Miniredis
	Client   valkey.Client // for the workload
}

// EnvOptions say what to start.
type EnvOptions struct {
	Embedded  bool // force the in-process server
	Primaries int  // [3]
	Replicas  int  // per primary [0]
}

// Start starts a 3-primary cluster when valkey-server or redis-server is on
// PATH, else (or with Embedded) the in-process server.
func Start(o EnvOptions) (*Env, error) {
	if o.Primaries <= 0 {
		o.Primaries = 3
	}
	e := &Env{}
	if !o.Embedded {
		if _, err := testcluster.FindServer(); err != nil {
			o.Embedded = true
		}
	}
	if o.Embedded {
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("embedded server: %w", err)
		}
		e.Embedded, e.mini, e.Addrs = true, m, []string{m.Addr()}
	} else {
		// on Valkey 8+ the demo turns the slot stats' CPU and network on, so
		// the heatmap's server modes have figures (a server of the demo's
		// own: emqtop never changes a server's configuration)
		var extra []string
		if name, major, err := testcluster.ServerVersion(); err == nil && name == "valkey" && major >= 8 {
			extra = append(extra, "cluster-slot-stats-enabled yes")
		}
		c, err := testcluster.Start(testcluster.Options{Primaries: o.Primaries, Replicas: o.Replicas, Extra: extra})
		if err != nil {
			return nil, err
		}
		e.Cluster, e.Addrs = c, c.Addrs()
	}
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: e.Addrs, DisableCache: true, ForceSingleClient: e.Embedded})
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("connect to the demo servers: %w", err)
	}
	e.Client = c
	return e, nil
}

// Target names the demo for the status bar.
func (e *Env) Target() string {
	if e.Embedded {
		return e.Label()
	}
	return e.Label() + " " + e.Addrs[0]
}

// Label says which demo this is: "embedded demo" or "demo".
func (e *Env) Label() string {
	if e.Embedded {
		return "embedded demo"
	}
	return "demo"
}

// Close stops every process the demo started and removes its directory.
func (e *Env) Close() {
	if e.Client != nil {
		e.Client.Close()
	}
	if e.Cluster != nil {
		e.Cluster.Close()
	}
	if e.mini != nil {
		e.mini.Close()
	}
}

// DemoConfig is the demo's workload: 200 queues, each with a backlog from
// the first second, a quarter of the tenants' consumers down (their queues
// only grow, their oldest job only ages), workers of which some die holding
// their jobs (stuck jobs within a minute) and some are slow (their late acks
// meet the fence), no reaper.
func DemoConfig(seed uint64) Config {
	return Config{Seed: seed, Synthetic: 200 - len(Named), Rate: 60, Workers: 12,
		DieShare: 0.04, SlowShare: 0.03, Lease: 4 * time.Second, WorkMax: 60 * time.Millisecond, Hostile: 0.002,
		Backlog: 6, Unserved: 0.25}
}

// SeedOddities writes what a real keyspace accumulates and the dashboard
// must show without flinching: a member that is not a job id, an active job
// whose row is gone, attempts that are not a number, a key outside the
// grammar, a payload full of terminal escapes.
func SeedOddities(ctx context.Context, c valkey.Client) error {
	q := "legacy-import"
	now := time.Now().UnixMilli()
	var errs []error
	do := func(cmd valkey.Completed) { errs = append(errs, c.Do(ctx, cmd).Error()) }
	keys, _ := keyspace.KeysOf(q)
	bad := "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY"
	row, _ := keyspace.JobKey(q, bad)
	do(c.B().Zadd().Key(keys.Active).ScoreMember().ScoreMember(float64(now-90_000), "x}:evil").ScoreMember(float64(now-30_000), bad).Build())
	do(c.B().Hset().Key(row).FieldValue().FieldValue("payload", "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b]0;pwned\x07{\"legacy\":true}").
		FieldValue("attempts", "three").FieldValue("state", "active").Build())
	do(c.B().Zadd().Key(keys.Pending).ScoreMember().ScoreMember(float64(now-600_000), "JOB01HZX3K2M4N5P6Q7R8S9T0VWXZ").Build())
	// deliberately outside the grammar: discovery must report it as foreign
	do(c.B().Zadd().Key("emq:{a}}:pending").ScoreMember().ScoreMember(1, "x").Build())
	return errors.Join(errs...)
}
