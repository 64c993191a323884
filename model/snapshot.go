package model

import "time"

// Job is one job as a snapshot saw it.
type Job struct {
	ID    string // as read from the set; may be invalid, never used for a key then
	Valid bool   // passes keyspace.ValidateJobID
	// Score is, for a pending job, its order (enqueue time in ms); for an
	// active job, its lease deadline in ms on the server clock.
	Score int64
	// ScoreOff is +1 when the score is +inf or past any time (1e300), -1
	// for -inf or before any: Score is then 0, and no time (ScoreFrom).
	ScoreOff int8
	Attempts int64 // the fencing token; meaningful when AttemptsOK
	// AttemptsOK is false when the attempts cannot be read: AttemptsWhy
	// then says why in words, and AttemptsRaw holds the field's text when
	// there was one (not an integer).
	AttemptsOK  bool
	AttemptsRaw string
	AttemptsWhy string
}

// Why the attempts of a job could not be read.
const (
	AttemptsInvalidID = "invalid id: no row read"
	AttemptsMissing   = "no attempts field"
	AttemptsWrongType = "the job row is not a hash"
	AttemptsNotNumber = "not an integer"
)

// Queue is one queue as a snapshot saw it.
type Queue struct {
	// the fields that hold pointers first, in the first 40 bytes: the
	// collector reads a queue's pointer words at every collection, and
	// together they lie in one cache line, or two, not three (a million
	// queues' slabs are read whole at each collection otherwise)
	Name string
	// Jobs are what a read in detail adds (nil otherwise): a pointer, so
	// that the million queues read without it do not carry three empty
	// slices each (72 bytes: 248 a queue in the 256-byte class, now 184 in
	// the 192); read them with PendingJobs, ActiveJobs and Hist, set them
	// with SetJobs
	Jobs *Jobs
	Err  string // this queue failed (a key of the wrong type, say); its counts are 0, not figures
	// Past is the queue's past, from the poller's history: it names the
	// queue's series there (a new reading of the queue takes it from the
	// last, CarryPast, so the history finds the series with no look-up of
	// the name among a million), and with the snapshot's Clock it gives
	// the queue's trend, sparkline and whole past (Snapshot.Trend, Spark,
	// Series), derived for what is shown. No pointer in it.
	Past      Past
	Pending   int64
	Active    int64
	Scheduled int64
	Expired   int64
	// OldestPendingAgeMs is the node's clock when read minus the lowest
	// pending score, or -1 when nothing is pending; Snapshot.OldestAge is
	// the age now, for a reading carried from an earlier poll.
	OldestPendingAgeMs int64
	// OldestScoreMs is the oldest pending job's score (0 when none), so its
	// age can move with the server clock between reads; NextDeadlineMs is
	// the first lease that ends after ServerTimeMs (0 when none), when the
	// expired count changes with no write.
	OldestScoreMs, NextDeadlineMs int64
	ServerTimeMs                  int64 // the owning node's clock when this was read
	// the small fields last, packed in one word (they were spread, 264
	// bytes in the 288-byte class)
	Slot uint16
	// Node is the primary that owns the slot (Node.Addr() its address): a
	// number in the process's table of addresses, not a string (NodeRef)
	Node   NodeRef
	Detail bool // its Jobs were asked for
	// Unread is set when the poll got no reading of the queue at all: its
	// script was refused or failed (NOPERM, a timeout, an unreadable
	// reply) or no node covers its slot; Err says why. A queue whose
	// reading was refused by its data (a key of the wrong type) is not.
	Unread bool
	// Stale is set when the queue's node did not answer this poll and the
	// figures are from an earlier one.
	Stale bool
	// Elsewhere is set when the reading came from a node other than Node:
	// a replica (--replicas), or the node a redirect named. (It was the
	// address, 16 bytes a queue that nothing showed.)
	Elsewhere bool
	// slab is the QueueStore slab the queue was taken from (0: none); a
	// copy made outside the store keeps its original's, which only makes
	// that slab look fuller than it is
	slab uint32
}

// CarryPast gives q, a new reading of prev's queue (the same name), prev's
// past and its place in the history, so that a reading that changed
// nothing the history keeps is no change to it, and one that did is put
// with no look-up of the name.
func (q *Queue) CarryPast(prev *Queue) {
	q.Past = prev.Past
}

// Jobs are a queue's job lists and lease histogram, read in detail.
type Jobs struct {
	Pending []Job // the first pending, lowest score first
	Active  []Job // the first active, earliest deadline first
	// Hist counts active leases per bucket of Snapshot.Edges: bucket 0 is
	// deadlines at or before now+Edges[0], bucket i is (Edges[i-1], Edges[i]],
	// the last bucket is after the last edge.
	Hist []int64
}

// PendingJobs are the first pending jobs read, lowest score first (nil
// when the queue was not read in detail).
func (q *Queue) PendingJobs() []Job {
	if q.Jobs == nil {
		return nil
	}
	return q.Jobs.Pending
}

// ActiveJobs are the first active jobs read, earliest deadline first.
func (q *Queue) ActiveJobs() []Job {
	if q.Jobs == nil {
		return nil
	}
	return q.Jobs.Active
}

// Hist is the lease histogram (see Jobs.Hist).
func (q *Queue) Hist() []int64 {
	if q.Jobs == nil {
		return nil
	}
	return q.Jobs.Hist
}

// SetJobs gives the queue new job lists and histogram: a Jobs of its own,
// never written through one a copy of the queue shares; none for all nil.
func (q *Queue) SetJobs(pending, active []Job, hist []int64) {
	q.Jobs = nil
	if pending != nil || active != nil || hist != nil {
		q.Jobs = &Jobs{Pending: pending, Active: active, Hist: hist}
	}
}

// OldestAgeMs is the oldest pending job's age at nowMs (a server clock),
// or -1 when nothing is pending: a reading carried from an earlier poll
// has its age move on with the clock.
func (q *Queue) OldestAgeMs(nowMs int64) int64 {
	if q.OldestPendingAgeMs < 0 {
		return -1
	}
	if q.OldestScoreMs > 0 && nowMs > q.ServerTimeMs {
		return max(0, nowMs-q.OldestScoreMs)
	}
	return q.OldestPendingAgeMs
}

// Load is pending plus active, what the heatmap's brightness shows.
func (q *Queue) Load() int64 { return q.Pending + q.Active }

// NodeStatus is a node of the topology with what the poll learned of it.
type NodeStatus struct {
	Node
	Server                   string // "valkey 8.1.0", "redis 7.0.15", when known
	Queues                   int
	Pending, Active, Expired int64
	Latency                  time.Duration // of its last snapshot pipeline
	Err                      string        // why the last poll of it failed
	LastGood                 time.Time     // local time of its last good answer
	Scripts, Commands, Trips int           // this poll's cost on the node
	// Tracking is true when the poller knows what changed on this primary
	// (CLIENT TRACKING) and reads its changed slots only; Full says why it
	// reads every slot of it instead ("" when Tracking).
	Tracking bool
	Full     string
	// Load is what the poller's reads cost this primary, a share of one
	// core (server time a second, running); UsPerScript the server time of
	// one snapshot script there.
	Load        float64
	UsPerScript float64
	// Discovery on a primary: Discovering while its first SCAN pass is
	// under way (its queues are not all listed yet), Walked the share of
	// its keys the pass under way has visited (0 to 1; 1 once a pass is
	// whole and none is under way).
	Walked      float64
	Discovering bool
}

// Up reports whether the node answered the last poll.
func (n *NodeStatus) Up() bool { return n.Err == "" && n.Health != "fail" }

// ForeignKey is a key that looks like EchoMQ's but is not in its grammar.
type ForeignKey struct {
	Key    string // raw; sanitise before showing
	Reason string
}

// PollStats is what one poll cost the cluster.
type PollStats struct {
	Duration   time.Duration
	Scripts    int // snapshot scripts sent
	Commands   int // every command sent, discovery and topology included
	RoundTrips int // pipelines sent, over all nodes
	// Read is "full" when every occupied slot was read, "changes" when only
	// the slots that needed it were; Why counts the scripts sent by reason
	// (ReadFull, ReadDirty, ...), Carried the queues whose last reading
	// stands because nothing of them changed.
	Read    string
	Why     map[string]int
	Carried int
	// Budget is the share of a core the reads may cost a node; MinInterval
	// the interval that keeps them within it (0: any); SweepEvery how long
	// the sweep over every slot takes now (stretched past the budget).
	Budget      float64
	MinInterval time.Duration
	SweepEvery  time.Duration
}

// Why a slot was read this poll.
const (
	ReadFull     = "full"     // its node is read in full (no tracking, or --full)
	ReadDirty    = "dirty"    // a key of it was written
	ReadDeadline = "deadline" // a lease in it ran out, with no write
	ReadSweep    = "sweep"    // the slow sweep under everything reached it
	ReadDetail   = "detail"   // a queue of it is on screen in detail
	ReadNew      = "new"      // a queue of it has no reading yet
	ReadUnproven = "unproven" // the poller cannot prove it unchanged: a reconnect, a failover, a slot move, a flush, a failed read
)

// Snapshot is everything one poll saw.
type Snapshot struct {
	Target       string // what emqtop is connected to, no secrets
	Cluster      bool
	ServerTimeMs int64     // the newest server clock among the nodes
	TakenAt      time.Time // local time the poll finished
	Version      string    // {emq}:version, "" when unset
	Nodes        []NodeStatus
	Topology     *Topology
	Queues       QueueList // a queue is shared by the snapshots that carry it: never written once published
	// ByName: Queues is sorted by name, each name once (the poller's
	// snapshots are), so readers need not check it over every queue.
	ByName       bool
	Edges        []int64 // the timeline's bucket edges, ms relative to now
	ForeignKeys  []ForeignKey
	ForeignCount int // may exceed len(ForeignKeys), which is bounded
	// DiscoveryComplete is true once every primary finished a SCAN pass.
	DiscoveryComplete bool
	Notes             []string // things the operator should know (replica reads refused, ...)
	// Load is the servers' own load per slot (CLUSTER SLOT-STATS); nil
	// before the first read.
	Load *SlotLoad
	Poll PollStats
	// Clock is the polls the history has seen, for the queues' Past.
	Clock Clock
	// Totals over time: pending of every queue over the last minute, in
	// SparkBuckets buckets, and its trend; a poll with a node not
	// answering is a gap, since its total would be partial.
	TotalSpark []int32
	TotalTrend Trend
	// Sessions is how many dashboards share this poll under emqtop serve
	// (0 when it is a dashboard's own).
	Sessions int
}

// Totals sums the queues.
func (s *Snapshot) Totals() (pending, active, expired int64) {
	for i := range s.Queues.Len() {
		pending += s.Queues.At(i).Pending
		active += s.Queues.At(i).Active
		expired += s.Queues.At(i).Expired
	}
	return
}

// OldestAge is a queue's oldest pending job's age now (the snapshot's
// server clock), in ms; -1 when nothing is pending.
func (s *Snapshot) OldestAge(q *Queue) int64 { return q.OldestAgeMs(s.ServerTimeMs) }

// Trend is what a queue's past says now.
func (s *Snapshot) Trend(q *Queue) Trend { return s.Clock.Trend(q.Past) }

// Spark is a queue's pending over the last minute, in SparkBuckets buckets
// (each its highest value), oldest first, Gap where none; nil with no past.
func (s *Snapshot) Spark(q *Queue) []int32 { return s.Clock.Spark(q.Past) }

// Series is a queue's whole past; ok is false when it has none.
func (s *Snapshot) Series(q *Queue) (Series, bool) {
	if !q.Past.Known() {
		return Series{}, false
	}
	return s.Clock.Series(q.Past), true
}

// NodesUp counts the primaries that answered, and the primaries.
func (s *Snapshot) NodesUp() (up, total int) {
	for i := range s.Nodes {
		if s.Nodes[i].Role != RolePrimary {
			continue
		}
		total++
		if s.Nodes[i].Up() {
			up++
		}
	}
	return
}

// Queue finds a queue by name.
func (s *Snapshot) Queue(name string) *Queue {
	for i := range s.Queues.Len() {
		if s.Queues.At(i).Name == name {
			return s.Queues.At(i)
		}
	}
	return nil
}

// JobDetail is one job row, read for the detail view.
type JobDetail struct {
	Queue, ID, Key string
	Exists         bool   // the row exists
	State          string // the row's state field, raw
	Attempts       string // raw: may not be an integer
	PayloadLen     int    // the whole payload's size in bytes
	Payload        string // at most a preview of it
	// PendingRank is the job's place in pending, 0 first, or -1 when it
	// is not pending; PendingScore and ActiveScore are its scores there
	// (InPending, InActive say whether it is in each set).
	PendingRank               int64
	InPending, InActive       bool
	PendingScore, ActiveScore int64
	ActiveOff                 int8 // as Job.ScoreOff, for ActiveScore
	// Others counts the row's fields other than state, attempts and
	// payload; Fields holds the first of them (a bounded number).
	Others int
	Fields []Field
}

// Field is one field of a job row: the name and the value, each cut to a
// preview in the server, with their whole sizes.
type Field struct {
	Name, Value       string
	NameLen, ValueLen int
}

// FindProgress is how far a find of a job's row by id has gone.
type FindProgress struct {
	Queue         string   // the queue whose row matched, once found
	Walked, Total int64    // keys the SCAN pages covered, of the primaries' keys
	Nodes         int      // primaries searched
	Failed        []string // primaries that could not be searched, in words
	Done          bool     // found, or every primary walked or failed
}
