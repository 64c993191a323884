package poller

import (
	"slices"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Options tune a poller. Zero values take the defaults in brackets.
type Options struct {
	Target          string        // what to call the connection in the snapshot
	Timeout         time.Duration // a node's answer to one round trip, at most [2s]
	PendingK        int           // pending jobs read per detailed queue [20]
	ActiveM         int           // active jobs read per detailed queue [50]
	Window          time.Duration // the lease timeline spans now±Window [60s]
	Buckets         int           // timeline buckets on each side of now [30]
	QueuesPerScript int           // queues in one snapshot script at most [64]
	RoundQueues     int           // queues in one pipeline round to a node at most [from Timeout: send.go]
	// PinScriptsUpTo: a plan of at most this many queues keeps its built
	// scripts from poll to poll [50,000]. Kept, they cost ~140 bytes a
	// queue (every key's name: 140 MB at a million queues, all of it for
	// the garbage collector to scan) to save building them for a full
	// read, which at that size the change-driven polls seldom make.
	PinScriptsUpTo  int
	ScanCount       int           // the first SCAN COUNT of a node; then chosen from ScanTarget [100]
	ScanTarget      time.Duration // server time aimed at per SCAN call [2ms]
	RediscoverEvery time.Duration // a discovery pass starts at least this often [1m]
	DiscoveryShare  float64       // passes start as often as keeps them within this share of a node's time [0.01]
	// RediscoverTracked: on a node of at least TrackedPassKeys keys whose
	// writes were tracked since its last pass began, a pass starts no more
	// often than this [10m]: a new queue's first write lists it anyway
	// (listWritten), so a pass there only drops queues gone, and at a
	// million queues a pass is a page a poll for minutes on end.
	RediscoverTracked time.Duration
	TrackedPassKeys   int64    // [100,000]
	Pinned            []string // poll these queues only; no discovery
	Replicas          bool     // read from replicas where it is safe
	// NoGroup: every slot read by a script of its own, none grouped with
	// others of its node (group.go); for the tests and benchmarks that
	// compare the two
	NoGroup       bool
	TopologyEvery time.Duration // refresh the topology this often [5s]
	// Dial makes a client for one node that the cluster client does not
	// hand out (valkey-go's Nodes() may leave replicas out); nil: none.
	Dial func(addr string) (valkey.Client, error)
	// DialHeld makes a tracker's own client for one node, its connections'
	// reads under h (Config.HeldDialer): the node's pushes are read at
	// the poll, not as they come (hold.go). nil: a tracker takes a
	// connection of the node's client, read as pushes come.
	DialHeld func(addr string, h *Hold) (valkey.Client, error)
	// Full reads every occupied slot each poll (--full); else a poll reads
	// what changed (change.go).
	Full bool
	// Sweep: every slot is read at least this often, whatever tracking
	// says [60s].
	Sweep time.Duration
	// Budget is the server time the poller's reads may cost each node, a
	// share of one core [0.02] (budget.go).
	Budget float64
	// SlotStatsEvery is the shortest time between two reads of a primary's
	// CLUSTER SLOT-STATS [5s]; the budget stretches it.
	SlotStatsEvery time.Duration
	// FirstPass is the time each poll may give a node's first discovery
	// pass, walked in measured pages [Timeout/4].
	FirstPass time.Duration
	// TrackingPause is how long a node whose tracking costs more than it
	// saves is read in full before tracking is tried again, doubled each
	// time it happens again (up to 16 times) [1m] (tracking.go).
	TrackingPause time.Duration
	// Once is one snapshot (--once): every queue read, once, by the poll
	// after DiscoverAll (its polls walk the keyspace and read no queue:
	// at a million queues they read each queue twice before, 24 s); no
	// tracking, no history (one snapshot has no past).
	Once bool
	// DetailAll asks every queue for its job lists (--once); the lease
	// histogram is read only for the queues named by SetDetail.
	DetailAll bool
}

func (o *Options) defaults() {
	// a snapshot lists its queues sorted by name, each once, whatever
	// order --queues gave them in (readers walk two snapshots side by side)
	o.Pinned = slices.Compact(slices.Sorted(slices.Values(o.Pinned)))
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	if o.PinScriptsUpTo <= 0 {
		o.PinScriptsUpTo = 50_000
	}
	if o.PendingK <= 0 {
		o.PendingK = 20
	}
	if o.ActiveM <= 0 {
		o.ActiveM = 50
	}
	if o.Window <= 0 {
		o.Window = 60 * time.Second
	}
	if o.Buckets <= 0 {
		o.Buckets = 30
	}
	if o.QueuesPerScript <= 0 {
		o.QueuesPerScript = 64
	}
	if o.ScanCount <= 0 {
		o.ScanCount = 100
	}
	if o.ScanTarget <= 0 {
		o.ScanTarget = 2 * time.Millisecond
	}
	if o.RediscoverEvery <= 0 {
		o.RediscoverEvery = time.Minute
	}
	if o.DiscoveryShare <= 0 {
		o.DiscoveryShare = 0.01
	}
	if o.RediscoverTracked <= 0 {
		o.RediscoverTracked = 10 * time.Minute
	}
	if o.TrackedPassKeys <= 0 {
		o.TrackedPassKeys = 100_000
	}
	if o.TopologyEvery <= 0 {
		o.TopologyEvery = 5 * time.Second
	}
	if o.Sweep <= 0 {
		o.Sweep = time.Minute
	}
	if o.Budget <= 0 {
		o.Budget = 0.02
	}
	if o.TrackingPause <= 0 {
		o.TrackingPause = time.Minute
	}
	if o.FirstPass <= 0 {
		o.FirstPass = o.Timeout / 4
	}
	if o.SlotStatsEvery <= 0 {
		o.SlotStatsEvery = SlotStatsEvery
	}
}
