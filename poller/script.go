package poller

import (
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
)

//go:embed snapshot.lua
var snapshotBody string

// snapshotLua is the read-only snapshot script with the job id gate.
var snapshotLua = keyspace.LuaJobIDGate + snapshotBody

var snapshotSHA = func() string {
	h := sha1.Sum([]byte(snapshotLua))
	return hex.EncodeToString(h[:])
}()

// script builds one batch's EVALSHA_RO.
func (p *Poller) script(nc valkey.Client, b batch, edges []int64, nowHint string) valkey.Completed {
	anyDetail := false
	for _, d := range b.detail {
		anyDetail = anyDetail || d
	}
	if !b.hist {
		// no histogram wanted (counts only, or --once's job lists): no
		// edges, so the call stays small and no ZCOUNT per edge is run
		edges = nil
	}
	// the keys and arguments go into the command as they are made, with
	// no slice of them of ours between (a poll's 1,000 scripts made two
	// each, garbage once copied)
	key := func(q string) keyspace.QueueKeys {
		// built for the batches read, not kept for every queue (issue 24);
		// discovery and --queues admit valid names only, so KeysOf cannot
		// refuse here
		k, _ := keyspace.KeysOf(q)
		return k
	}
	k := key(b.queues[0])
	c := nc.B().EvalshaRo().Sha1(snapshotSHA).Numkeys(int64(3*len(b.queues))).Key(k.Pending, k.Active, k.Schedule)
	for _, q := range b.queues[1:] {
		k := key(q)
		c = c.Key(k.Pending, k.Active, k.Schedule)
	}
	a := c.Arg(nowHint, strconv.Itoa(p.opt.PendingK), strconv.Itoa(p.opt.ActiveM), strconv.Itoa(len(edges)))
	for _, e := range edges {
		a = a.Arg(strconv.FormatInt(e, 10))
	}
	if anyDetail {
		for i, q := range b.queues {
			d := "0"
			if b.detail[i] {
				d = "1"
			}
			a = a.Arg(key(q).JobPrefix, d)
		}
	}
	return a.Build()
}

// serverName reads "valkey 8.1.0" or "redis 7.0.15" from INFO server.
func serverName(info string) string {
	var redis, valkeyV, name string
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "valkey_version:"); ok {
			valkeyV = v
		} else if v, ok := strings.CutPrefix(line, "redis_version:"); ok {
			redis = v
		} else if v, ok := strings.CutPrefix(line, "server_name:"); ok {
			name = v
		}
	}
	switch {
	case valkeyV != "":
		return "valkey " + valkeyV
	case name == "valkey":
		return "valkey " + redis
	case redis != "":
		return "redis " + redis
	}
	return "unknown"
}
