package vtest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
)

// Until polls cond until it holds, and fails the test, saying what it
// waited for, when timeout passes first. It waits for an event the test
// cannot be told of (a server's state, a lease running out): timeout is
// how long before the event is called lost, never a bound on how fast the
// thing must be, so it is generous.
func Until(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !Within(timeout, cond) {
		tb.Fatalf("waited %v for %s", timeout, what)
	}
}

// Within polls cond until it holds (true) or timeout passes (false).
func Within(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}

// UntilExpired waits until at least n leases of queue have run out on the
// server's clock: a lease of a millisecond has run out a moment after its
// claim, not at it, and the server's clock, not the test's, says when.
func UntilExpired(tb testing.TB, c valkey.Client, queue string, n int64) {
	tb.Helper()
	k, err := keyspace.KeysOf(queue)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	Until(tb, 30*time.Second, fmt.Sprintf("%d leases of %s to run out", n, queue), func() bool {
		now, err := c.Do(ctx, c.B().Time().Build()).AsIntSlice()
		if err != nil || len(now) != 2 {
			return false
		}
		ms := now[0]*1000 + now[1]/1000
		got, err := c.Do(ctx, c.B().Zcount().Key(k.Active).Min("-inf").Max("("+strconv.FormatInt(ms, 10)).Build()).AsInt64()
		return err == nil && got >= n
	})
}
