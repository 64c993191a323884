package model

import "time"

// SlotLoad is the servers' own load per slot, from CLUSTER SLOT-STATS
// (Valkey 8 and newer): every key a slot holds (EchoMQ's or not), and with
// cluster-slot-stats-enabled the CPU time and the network bytes spent on
// it, as rates from the difference of two reads. It is read at a pace the
// self-load budget allows, so it is older than the queues' figures: ReadAt
// says how old, per node. A SlotLoad is never changed once made.
type SlotLoad struct {
	// Keys, CPU (µs of server time a second) and Net (bytes in and out a
	// second) are indexed by slot; nil when no node gave that figure, and
	// a slot of a node that did not is 0 (Nodes says which).
	Keys []int64
	CPU  []float64
	Net  []float64
	// Nodes says, per primary's address, what it gave and why not.
	Nodes map[string]SlotStatsNode
}

// What a primary gave of its slots' load.
const (
	SlotStatsFull  = "full"  // key counts, CPU and network
	SlotStatsKeys  = "keys"  // key counts only: cluster-slot-stats-enabled is off
	SlotStatsNone  = "none"  // no CLUSTER SLOT-STATS (Redis 7, the embedded server, Valkey 7)
	SlotStatsError = "error" // the read failed; Why says how
)

// SlotStatsNode is one primary's part of a SlotLoad.
type SlotStatsNode struct {
	Mode string // SlotStatsFull, SlotStatsKeys, SlotStatsNone or SlotStatsError
	Why  string // for every mode but full: in words, with how to turn it on
	// ReadAt is when its slots were last read; RatesOver the time between
	// the two reads the rates come from (0: one read so far, no rate yet).
	ReadAt    time.Time
	RatesOver time.Duration
	// Cost is the server time one read of its slots took (TIME around it).
	Cost time.Duration
	// Totals over its slots, for --once --json and the metrics (never a
	// label per slot).
	Keys     int64
	CPU, Net float64
}
