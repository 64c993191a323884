package poller

import (
	"fmt"
	"testing"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
)

// evalshaCalls is how many snapshot scripts the primaries have run, by
// their own count (INFO commandstats).
func evalshaCalls(t *testing.T, cl *testcluster.Cluster) int64 {
	t.Helper()
	var n int64
	for _, nd := range cl.Nodes {
		info, err := testcluster.Info(nd.Addr(), "commandstats")
		if err != nil {
			t.Fatal(err)
		}
		if c, _, ok := evalshaRo(info); ok {
			n += c
		}
	}
	return n
}

// --once's poller (Options.Once) reads each queue once: its discovery
// polls walk the keyspace (in pages of 10 keys: many polls) and run no
// script (the servers say so), the poll after reads every queue, no node
// gets a tracking connection, and no history is kept.
func TestOnceReadsEachQueueOnce(t *testing.T) {
	cl, c := vtest.Cluster(t, 3)
	qs := map[string]want{}
	for i := 0; i < 300; i++ {
		qs[fmt.Sprintf("o-%03d", i)] = want{pending: 1, active: int64(i % 2)}
	}
	fill(t, c, qs)
	p := New(c, Options{Once: true, ScanCount: 10, ScanTarget: 1, FirstPass: 1})
	t.Cleanup(p.Close)
	before := evalshaCalls(t, cl)
	if err := p.DiscoverAll(ctx); err != nil {
		t.Fatal(err)
	}
	if p.prev == nil || p.prev.Queues.Len() != 0 {
		t.Fatal("discovery's snapshots list queues it did not read")
	}
	if n := evalshaCalls(t, cl) - before; n != 0 {
		t.Fatalf("discovery ran %d snapshot scripts", n)
	}
	s := pollOne(t, p)
	checkCounts(t, s, qs)
	if s.Queues.Len() != len(qs) || s.Poll.Read != "full" {
		t.Fatalf("the poll after discovery: %d queues, read %s", s.Queues.Len(), s.Poll.Read)
	}
	if n := evalshaCalls(t, cl) - before; n != int64(s.Poll.Scripts) || n == 0 {
		t.Errorf("the servers ran %d scripts, the poll sent %d", n, s.Poll.Scripts)
	}
	for _, nd := range cl.Nodes {
		if n := trackingClients(t, nd.Addr()); n != 0 {
			t.Errorf("%s: %d tracking clients", nd.Addr(), n)
		}
	}
	if q := s.Queue("o-001"); q.Past.Known() {
		t.Error("a history was kept: o-001 has a past")
	}
	// its discovery's name sets are let go once the reading poll has its
	// list; a poll after it (--once makes none) still reads every queue
	for addr, st := range p.nodes {
		if st.known != nil || st.passSeen != nil {
			t.Errorf("%s: the name sets are held after the reading poll", addr)
		}
	}
	if s = pollOne(t, p); s.Queues.Len() != len(qs) {
		t.Errorf("a second poll: %d queues of %d", s.Queues.Len(), len(qs))
	}
	checkCounts(t, s, qs)
}
