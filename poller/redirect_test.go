package poller

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/internal/testcluster"
	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

// Two nodes that disagree about a moving slot (the source migrating it to
// a target that is not importing it) send a command back and forth: the
// source answers ASK, the target MOVED. valkey-go follows that for ever by
// default (a requeue of a moving queue spun until the process was killed);
// emqtop's client gives up at echomq.MaxRedirects and the requeue says the
// slot is moving, nothing written.
func TestARedirectionLoopEnds(t *testing.T) {
	cl := testcluster.ForTest(t, testcluster.Options{Primaries: 3})
	const q = "pingpong" // no key: the source sends every command of it on
	slot := int(keyspace.QueueSlot(q))
	from, err := cl.Owner(slot)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := cl.Nodes[from], cl.Nodes[(from+1)%3]
	conn, err := testcluster.Dial(src.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Do("CLUSTER", "SETSLOT", strconv.Itoa(slot), "MIGRATING", dst.ID); err != nil {
		t.Fatal(err)
	}

	// valkey-go's default: the loop lasts as long as the caller waits
	plain, err := valkey.NewClient(valkey.ClientOption{InitAddress: cl.Addrs(), DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	short, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = echomq.RequeueExpired(short, plain, q, 0)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("valkey-go's default client: %v; want the loop cut by the deadline (is the loop gone? then this test proves nothing)", err)
	}

	c, err := Connect(Config{Addrs: cl.Addrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	long, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = echomq.RequeueExpired(long, c, q, 0)
	if !errors.Is(err, echomq.ErrSlotMoving) || long.Err() != nil {
		t.Fatalf("emqtop's client: %v; want ErrSlotMoving before the caller's deadline", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "MOVED") && !strings.Contains(msg, "ASK") {
		t.Errorf("the error names no redirection: %s", msg)
	}
}
