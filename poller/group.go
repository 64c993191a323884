package poller

import (
	"strconv"
	"strings"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// A change-driven poll reads a few queues of many slots: a thousand
// queues written among a million lie in ~970 slots, and one script a slot
// was ~970 calls a poll, each a command for the client to build, send,
// read and decode and a call for the server to run (24-28 µs of a node's
// time each, VALKEY-NOTES). Such batches are sent grouped: one call reads
// the counts of the queues of many slots of one primary, their keys
// passed undeclared (snapshot.lua). A script with no "#!lua" line may read
// any key its node serves, of any slot; a key of a slot the node does not
// serve, or of a slot migrating away whose key is not there, fails with
// the server's error as it is read, never as an empty set, and that batch
// is read again by its own script, whose declared keys get the redirect
// (MOVED, ASK, TRYAGAIN) the per-slot path already follows.

// groupSmall: a batch of fewer queues is grouped; a whole slot's (61
// queues at a million) keeps its own script, pinned and sent again. A
// grouped call reads QueuesPerScript queues at most, as a slot's does (the
// server runs a script to its end: a call is kept as short as a slot's).
const groupSmall = 8

// call is one script of a round and the batches its reply answers:
// first to first+n of the node's plan; grouped when several slots share it.
type call struct {
	at, first, n int
	grouped      bool
}

// groupable says whether batch b may share a call: counts only, few
// queues, no built command kept for it, read from a primary that has not
// refused a grouped call.
func (p *Poller) groupable(np *nodePlan, st *nodeState, b *batch) bool {
	if !np.primary || st.noGroup || p.opt.NoGroup || b.asking || b.hist || b.cmd != nil || len(b.queues) >= groupSmall {
		return false
	}
	for _, d := range b.detail {
		if d {
			return false
		}
	}
	return true
}

// groupScript is one EVALSHA_RO reading the counts of the queues of
// batches bs, with no key declared.
func (p *Poller) groupScript(nc valkey.Client, bs []batch, nowHint string) valkey.Completed {
	a := nc.B().EvalshaRo().Sha1(snapshotSHA).Numkeys(0).Arg(nowHint, strconv.Itoa(p.opt.PendingK), strconv.Itoa(p.opt.ActiveM), "0")
	for _, b := range bs {
		for _, q := range b.queues {
			k, _ := keyspace.KeysOf(q) // valid names only (see script)
			a = a.Arg(k.Pending, k.Active, k.Schedule)
		}
	}
	return a.Build()
}

// decodeGroup reads a grouped call's reply into the rows of its batches;
// it returns the batches to read again by their own scripts: each one
// with a queue the server would not read here (a moved or migrating
// slot), or all of them when the reply is not the call's.
func decodeGroup(r valkey.ValkeyResult, np *nodePlan, c call, rows [][]*model.Queue, store *model.QueueStore) (again []int) {
	all := func() []int {
		for bi := c.first; bi < c.first+c.n; bi++ {
			again = append(again, bi)
		}
		return again
	}
	want := 1
	for bi := c.first; bi < c.first+c.n; bi++ {
		want += len(np.batches[bi].queues)
	}
	arr, err := r.ToArray()
	if err != nil || len(arr) != want {
		return all()
	}
	now, _ := arr[0].AsInt64()
	off := 1
	for bi := c.first; bi < c.first+c.n; bi++ {
		b := &np.batches[bi]
		part := arr[off : off+len(b.queues)]
		off += len(b.queues)
		if notHere(part) {
			again = append(again, bi)
			continue
		}
		rows[bi] = decodeRows(part, now, *b, store)
	}
	return again
}

// notHere says whether some row failed with an error other than a wrong
// type: in a grouped call, a key its node would not read for the call
// (moved, migrating); its slot's own script says why.
func notHere(part []valkey.ValkeyMessage) bool {
	for i := range part {
		if !part[i].IsArray() {
			continue // a counts row is a string (asked first: ToArray's error for one is an allocation a queue)
		}
		row, err := part[i].ToArray()
		if err != nil || len(row) != 1 {
			continue // a row in detail is longer
		}
		if e, _ := row[0].ToString(); e != "" && !strings.HasPrefix(e, "WRONGTYPE") {
			return true
		}
	}
	return false
}
