package poller

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

// maxForeign bounds the foreign keys remembered per node.
const maxForeign = 1000

// decodeBatch reads one snapshot script's reply. A reply that cannot be
// read fails its queues with the reason; it never panics.
func decodeBatch(r valkey.ValkeyResult, b batch, store *model.QueueStore) []*model.Queue {
	arr, err := r.ToArray()
	if err != nil || len(arr) != 1+len(b.queues) {
		rows := make([]*model.Queue, len(b.queues))
		store.Take(rows) // set field by field: see Take
		node := model.RefOf(b.owner)
		for i, name := range b.queues {
			q := rows[i]
			q.Name, q.Slot, q.Node, q.Err, q.Unread, q.OldestPendingAgeMs = name, b.slot, node, "unreadable snapshot reply", true, -1
		}
		return rows
	}
	now, _ := arr[0].AsInt64()
	return decodeRows(arr[1:], now, b, store)
}

// decodeRows reads the rows of batch b's queues, one each, read at the
// server time now (a slot's own call, or its part of a grouped one).
func decodeRows(arr []valkey.ValkeyMessage, now int64, b batch, store *model.QueueStore) []*model.Queue {
	rows := make([]*model.Queue, len(b.queues))
	store.Take(rows) // set field by field: see Take
	node := model.RefOf(b.owner)
	for i, name := range b.queues {
		// a queue of the store's slabs (one queue carried keeps its slab
		// whole: the store moves the queues of slabs mostly let go)
		q := rows[i]
		q.Name, q.Slot, q.Node, q.ServerTimeMs, q.OldestPendingAgeMs, q.Detail = name, b.slot, node, now, -1, b.detail[i]
		if c, err := arr[i].ToString(); err == nil {
			if !countsRow(q, now, c) { // counts only: one string
				q.Err = "unreadable snapshot row"
			}
			continue
		}
		row, err := arr[i].ToArray()
		if err != nil || len(row) == 0 {
			q.Err = "unreadable snapshot row"
			continue
		}
		if e, _ := row[0].ToString(); e != "" || len(row) < 6 {
			if e == "" {
				e = "short snapshot row"
			}
			q.Err = e
			continue
		}
		q.Pending, _ = row[1].AsInt64()
		q.Active, _ = row[2].AsInt64()
		q.Scheduled, _ = row[3].AsInt64()
		if s, err := row[4].ToString(); err == nil {
			oldest(q, now, s)
		}
		q.Expired, _ = row[5].AsInt64()
		if len(row) >= 7 {
			if s, err := row[6].ToString(); err == nil {
				q.NextDeadlineMs = score(s)
			}
		}
		if q.Detail && len(row) >= 10 {
			hist, _ := row[9].AsIntSlice()
			q.Jobs = &model.Jobs{Pending: decodeJobs(row[7]), Active: decodeJobs(row[8]), Hist: hist}
		}
	}
	return rows
}

// countsRow reads a row of counts only, "pending active scheduled oldest
// expired next" ('-' for no oldest score, no next deadline), into q; false
// when it is not one (q left as it was).
func countsRow(q *model.Queue, now int64, s string) bool {
	var f [6]string
	for k := range f {
		sp := strings.IndexByte(s, ' ')
		if k == len(f)-1 {
			if sp >= 0 {
				return false
			}
			f[k] = s
			break
		}
		if sp < 0 {
			return false
		}
		f[k], s = s[:sp], s[sp+1:]
	}
	var n [4]int64
	for k, at := range [4]int{0, 1, 2, 4} {
		v, err := strconv.ParseInt(f[at], 10, 64)
		if err != nil || v < 0 {
			return false
		}
		n[k] = v
	}
	q.Pending, q.Active, q.Scheduled, q.Expired = n[0], n[1], n[2], n[3]
	if f[3] != "-" {
		oldest(q, now, f[3])
	}
	if f[5] != "-" {
		q.NextDeadlineMs = score(f[5])
	}
	return true
}

// oldest sets q's oldest pending job from its score; a score of ±inf (or
// 1e300) is no time: no age, never 106751d.
func oldest(q *model.Queue, now int64, s string) {
	if _, err := strconv.ParseFloat(s, 64); err != nil {
		return
	}
	if ms, off := scoreOf(s); off == 0 {
		q.OldestScoreMs = ms
		q.OldestPendingAgeMs = max(0, now-ms)
	}
}

// decodeJobs reads {id, score, attempts...}.
func decodeJobs(m valkey.ValkeyMessage) []model.Job {
	f, _ := m.AsStrSlice()
	out := make([]model.Job, 0, len(f)/3)
	for i := 0; i+2 < len(f); i += 3 {
		j := model.Job{ID: f[i], Valid: keyspace.ValidateJobID(f[i]) == nil}
		j.Score, j.ScoreOff = scoreOf(f[i+1])
		// the script's sentinels ('!…') are words here, never shown as they are
		switch a, err := strconv.ParseInt(f[i+2], 10, 64); {
		case !j.Valid || f[i+2] == "!invalid-id":
			j.AttemptsWhy = model.AttemptsInvalidID
		case f[i+2] == "!missing":
			j.AttemptsWhy = model.AttemptsMissing
		case f[i+2] == "!wrongtype":
			j.AttemptsWhy = model.AttemptsWrongType
		case err != nil:
			j.AttemptsRaw, j.AttemptsWhy = f[i+2], model.AttemptsNotNumber
		default:
			j.Attempts, j.AttemptsOK = a, true
		}
		out = append(out, j)
	}
	return out
}

// score is a score as milliseconds, 0 when it is no time (±inf, 1e300).
func score(s string) int64 {
	ms, _ := scoreOf(s)
	return ms
}

// scoreOf is a score as milliseconds, and whether it is off any time.
func scoreOf(s string) (int64, int8) {
	f, err := strconv.ParseFloat(s, 64) // "inf" and "-inf" parse
	if err != nil {
		return 0, 0
	}
	return model.ScoreFrom(f)
}

// scanned takes one SCAN page: queue keys join the pass, keys that look
// like EchoMQ's but break the grammar are kept as foreign keys. A pass ends
// when the cursor comes back to 0.
func (p *Poller) scanned(st *nodeState, r valkey.ValkeyResult, res *nodeResult) {
	e, err := r.AsScanEntry()
	if err != nil {
		return
	}
	p.names.mu.Lock()
	defer p.names.mu.Unlock()
	for _, key := range e.Elements {
		k, err := keyspace.Parse(key)
		switch {
		case err == nil && k.Type != keyspace.TypeJob && k.Type != keyspace.TypeMeta:
			if id := p.names.intern(k.Queue); st.passSeen.add(id) {
				if st.known.has(id) {
					st.seenKnown++
				} else {
					p.added(id, res.plan.addr)
				}
			}
		case err == nil:
			addForeign(st.passForeign, key, "a "+k.Type+" key holding a sorted set")
		case errors.Is(err, keyspace.ErrNotEchoMQ):
		default:
			addForeign(st.passForeign, key, err.Error())
		}
	}
	res.scanned = e.Elements
	st.cursor = strconv.FormatUint(e.Cursor, 10)
	if e.Cursor == 0 {
		// A queue new to this pass bumped the version when it was added;
		// one the last pass had and this one has not bumps it here. Not
		// counts compared: a pass that gained one (a first write the
		// tracking listed) and lost one has the last one's count, and the
		// queue gone stayed listed for good.
		if st.seenKnown < st.known.len() {
			// some queue is no longer here: deleted, or its slot moved
			// away, which the topology in hand may not know yet
			p.setChanged()
			st.shrankAt = time.Now()
			p.kickTopology()
		}
		st.known, st.passSeen, st.seenKnown = st.passSeen, &idSet{}, 0
		st.knownAt = st.passStart
		st.foreign, st.passForeign = st.passForeign, map[string]string{}
		st.passes++
	}
}

// listWritten lists the queues a primary's tracking saw a set of written
// that no discovery pass has found (a tenant's first job): from the next
// poll on, not once the pass reaches the key (at a million queues a pass
// takes minutes; the fresh-every-second goal has every write on screen
// within two polls). Each joins the node's current pass as a SCAN page
// would add it, so a queue whose keys are gone by then (a write that
// emptied it) is dropped by the pass after the next, as one deleted is.
// Not with --queues (the list is the user's).
func (p *Poller) listWritten(addr string, queues []string) {
	if len(queues) == 0 || len(p.opt.Pinned) > 0 {
		return
	}
	p.names.mu.Lock()
	defer p.names.mu.Unlock()
	st := p.nodes[addr]
	if st == nil || st.passSeen == nil {
		return
	}
	for _, q := range queues {
		if keyspace.ValidateQueue(q) != nil {
			continue
		}
		id := p.names.intern(q)
		if st.known.has(id) || !st.passSeen.add(id) {
			continue
		}
		p.added(id, addr)
	}
}

// added notes name id, new to node addr's pass, for the next list (under
// p.names.mu): the list is the last one with it put in, or made whole past
// mostAdded (withAdded).
func (p *Poller) added(id int, addr string) {
	if len(p.names.added) < mostAdded {
		p.names.added = append(p.names.added, p.names.t.Name(id))
		p.names.addedOn = append(p.names.addedOn, addr)
	}
	p.setChanged()
}

// setChanged marks the queue set as changed; scanned runs in the nodes'
// goroutines, so the version is bumped under the lock.
func (p *Poller) setChanged() {
	p.mu.Lock()
	p.qver++
	p.mu.Unlock()
}

func addForeign(m map[string]string, key, reason string) {
	if len(m) < maxForeign {
		m[key] = reason
	}
}
