package poller

import (
	"fmt"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// Discovery's progress: while a primary's first pass is under way the
// snapshot says how far it has gone, rising and under 1; once it is whole,
// every queue is listed. 6,000 queues of 10 rows (66,000 keys) and
// a first pass of 1 ms a poll: many polls, each a few measured pages.
func TestDiscoveryProgress(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	c := vtest.Client(t, cl)
	sd := vtest.NewSeeder(t, c)
	now := float64(time.Now().UnixMilli())
	const queues = 6000
	for i := 0; i < queues; i++ {
		q := fmt.Sprintf("dq-%04d", i)
		for j := 0; j < 10; j++ {
			sd.Job(q, keyspace.TypePending, now-float64(j))
		}
	}
	sd.Flush()
	p := New(c, Options{FirstPass: time.Millisecond})
	defer p.Close()
	last := map[string]float64{}
	partWay := 0
	for i := 0; ; i++ {
		if i == 5000 {
			t.Fatal("discovery did not complete in 5,000 polls")
		}
		s := pollOne(t, p)
		for _, n := range s.Nodes {
			if n.Role != model.RolePrimary {
				continue
			}
			switch {
			case n.Discovering && (n.Walked >= 1 || n.Walked < last[n.Addr]):
				t.Fatalf("poll %d, %s: walked %.3f after %.3f, discovering", i, n.Addr, n.Walked, last[n.Addr])
			case !n.Discovering && (n.Walked < 0 || n.Walked > 1):
				// listed whole; a later pass may be under way (a small
				// keyspace is walked again within seconds)
				t.Fatalf("poll %d, %s: walked %.3f, its first pass done", i, n.Addr, n.Walked)
			case n.Discovering && n.Walked > 0:
				partWay++
			}
			last[n.Addr] = n.Walked
		}
		if s.DiscoveryComplete {
			if s.Queues.Len() != queues {
				t.Errorf("discovery complete with %d queues, want %d", s.Queues.Len(), queues)
			}
			break
		}
	}
	if partWay == 0 {
		t.Error("no poll showed a pass part way")
	}
}
