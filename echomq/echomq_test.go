package echomq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

var ctx = context.Background()

func zcard(t *testing.T, c valkey.Client, queue, typ string) int64 {
	t.Helper()
	k, _ := keyspace.QueueKey(queue, typ)
	n, err := c.Do(ctx, c.B().Zcard().Key(k).Build()).AsInt64()
	if err != nil {
		t.Fatalf("ZCARD %s: %v", k, err)
	}
	return n
}

func hget(t *testing.T, c valkey.Client, queue, id, field string) string {
	t.Helper()
	k, _ := keyspace.JobKey(queue, id)
	v, err := c.Do(ctx, c.B().Hget().Key(k).Field(field).Build()).ToString()
	if err != nil && !valkey.IsValkeyNil(err) {
		t.Fatalf("HGET %s %s: %v", k, field, err)
	}
	return v
}

func exists(t *testing.T, c valkey.Client, key string) bool {
	t.Helper()
	n, err := c.Do(ctx, c.B().Exists().Key(key).Build()).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestOperations(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	q := "orders"
	id, err := Enqueue(ctx, c, q, []byte(`{"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if keyspace.ValidateJobID(id) != nil {
		t.Fatalf("Enqueue minted %q", id)
	}
	if got := hget(t, c, q, id, "state"); got != "pending" {
		t.Errorf("state = %q, want pending", got)
	}
	if got := hget(t, c, q, id, "attempts"); got != "0" {
		t.Errorf("attempts = %q, want 0", got)
	}
	job, ok, err := Claim(ctx, c, q, time.Minute)
	if err != nil || !ok || job.ID != id || job.Attempts != 1 || string(job.Payload) != `{"n":1}` {
		t.Fatalf("Claim = %+v, %v, %v", job, ok, err)
	}
	if got := hget(t, c, q, id, "state"); got != "active" {
		t.Errorf("state after claim = %q", got)
	}
	if _, ok, err := Claim(ctx, c, q, time.Minute); ok || err != nil {
		t.Fatalf("Claim of an empty queue = %v, %v", ok, err)
	}
	// the lease is on the server clock: now + 60s, within a second
	ak, _ := keyspace.QueueKey(q, keyspace.TypeActive)
	score, err := c.Do(ctx, c.B().Zscore().Key(ak).Member(id).Build()).AsFloat64()
	if err != nil {
		t.Fatal(err)
	}
	tm, _ := c.Do(ctx, c.B().Time().Build()).AsStrSlice()
	var sec int64
	fmt.Sscan(tm[0], &sec)
	if d := int64(score) - sec*1000; d < 59000 || d > 61000 {
		t.Errorf("lease deadline is now%+dms, want about +60000", d)
	}

	if err := Ack(ctx, c, q, id, 2); !errors.Is(err, ErrFenced) {
		t.Errorf("Ack with a stale token = %v, want ErrFenced", err)
	}
	var fe *FenceError
	if err := Requeue(ctx, c, q, id, 5); !errors.As(err, &fe) || fe.Got != 1 {
		t.Errorf("Requeue fenced = %v, want FenceError{Got: 1}", err)
	}
	if err := Requeue(ctx, c, q, id, 1); err != nil {
		t.Fatalf("Requeue = %v", err)
	}
	if hget(t, c, q, id, "state") != "pending" || hget(t, c, q, id, "attempts") != "1" || zcard(t, c, q, "pending") != 1 {
		t.Error("requeue did not move the job back with attempts unchanged")
	}
	if err := Requeue(ctx, c, q, id, 1); !errors.Is(err, ErrNotActive) {
		t.Errorf("Requeue of a pending job = %v, want ErrNotActive", err)
	}
	if err := Ack(ctx, c, q, id, 1); !errors.Is(err, ErrNotActive) {
		t.Errorf("Ack of a pending job = %v, want ErrNotActive", err)
	}
	job, _, _ = Claim(ctx, c, q, time.Minute)
	if job.Attempts != 2 {
		t.Fatalf("second claim attempts = %d, want 2", job.Attempts)
	}
	if err := Ack(ctx, c, q, id, 2); err != nil {
		t.Fatal(err)
	}
	jk, _ := keyspace.JobKey(q, id)
	if exists(t, c, jk) || zcard(t, c, q, "active") != 0 {
		t.Error("ack left the job behind")
	}
	if err := Ack(ctx, c, q, id, 2); !errors.Is(err, ErrNotActive) {
		t.Errorf("second ack = %v, want ErrNotActive", err)
	}
}

func TestBadInputIsRefusedBeforeSending(t *testing.T) {
	// a closed client: any command sent would fail with valkey.ErrClosing,
	// so a keyspace refusal proves nothing was sent
	_, c := vtest.Cluster(t, 0)
	c.Close()
	for name, err := range map[string]error{
		"enqueue": func() error { _, err := Enqueue(ctx, c, "a}b", nil); return err }(),
		"claim":   func() error { _, _, err := Claim(ctx, c, "", time.Second); return err }(),
		"ack":     Ack(ctx, c, "q", "x}:evil", 1),
		"requeue": Requeue(ctx, c, "emq", "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY", 1),
		"expired": func() error { _, err := RequeueExpired(ctx, c, "a\x1bb", 1); return err }(),
		"drain":   func() error { _, err := Drain(ctx, c, ""); return err }(),
	} {
		if !errors.Is(err, keyspace.ErrInvalidQueue) && !errors.Is(err, keyspace.ErrInvalidJobID) {
			t.Errorf("%s: %v, want a keyspace refusal", name, err)
		}
	}
}

func TestWrongTypeNamesTheKey(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	pk, _ := keyspace.QueueKey("broken", keyspace.TypePending)
	if err := c.Do(ctx, c.B().Set().Key(pk).Value("oops").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	id, err := Enqueue(ctx, c, "broken", []byte("x"))
	if !errors.Is(err, ErrWrongType) || !strings.Contains(err.Error(), pk) {
		t.Errorf("Enqueue onto a string = %v, want ErrWrongType naming %s", err, pk)
	}
	// all or nothing: no job row was written
	if jk, _ := keyspace.JobKey("broken", id); exists(t, c, jk) {
		t.Errorf("a refused enqueue left its row %s", jk)
	}
	for name, err := range map[string]error{
		"claim":   func() error { _, _, err := Claim(ctx, c, "broken", time.Second); return err }(),
		"drain":   func() error { _, err := Drain(ctx, c, "broken"); return err }(),
		"expired": func() error { _, err := RequeueExpired(ctx, c, "broken", 0); return err }(),
	} {
		if !errors.Is(err, ErrWrongType) {
			t.Errorf("%s on a wrong type = %v", name, err)
		}
	}
}

func TestRequeueExpiredMovesOnlyExpired(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	q := "fills"
	for i := 0; i < 10; i++ {
		if _, err := Enqueue(ctx, c, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	short := map[string]bool{}
	for i := 0; i < 4; i++ {
		j, _, err := Claim(ctx, c, q, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		short[j.ID] = true
	}
	for i := 0; i < 3; i++ {
		if _, _, err := Claim(ctx, c, q, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	vtest.UntilExpired(t, c, q, 4)
	if n, err := RequeueExpired(ctx, c, q, 3); err != nil || n != 3 {
		t.Fatalf("RequeueExpired(limit 3) = %d, %v", n, err)
	}
	if n, err := RequeueExpired(ctx, c, q, 0); err != nil || n != 1 {
		t.Fatalf("RequeueExpired(all) = %d, %v; want the one left", n, err)
	}
	if zcard(t, c, q, "active") != 3 || zcard(t, c, q, "pending") != 7 {
		t.Fatalf("active %d pending %d, want 3 and 7", zcard(t, c, q, "active"), zcard(t, c, q, "pending"))
	}
	pk, _ := keyspace.QueueKey(q, keyspace.TypePending)
	ids, _ := c.Do(ctx, c.B().Zrange().Key(pk).Min("0").Max("-1").Build()).AsStrSlice()
	moved := 0
	for _, id := range ids {
		if short[id] {
			moved++
			if hget(t, c, q, id, "state") != "pending" || hget(t, c, q, id, "attempts") != "1" {
				t.Errorf("%s: requeued row state %q attempts %q", id, hget(t, c, q, id, "state"), hget(t, c, q, id, "attempts"))
			}
		}
	}
	if moved != 4 {
		t.Errorf("%d of the 4 expired jobs are pending again", moved)
	}
}

func TestDrain(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	q := "emails"
	var ids []string
	for i := 0; i < 2500; i++ {
		id, err := Enqueue(ctx, c, q, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	act, _, _ := Claim(ctx, c, q, time.Hour)
	n, err := Drain(ctx, c, q)
	if err != nil || n != 2499 {
		t.Fatalf("Drain = %d, %v; want 2499", n, err)
	}
	if zcard(t, c, q, "pending") != 0 || zcard(t, c, q, "active") != 1 {
		t.Error("drain left pending jobs or touched active ones")
	}
	left := 0
	for _, id := range ids {
		if jk, _ := keyspace.JobKey(q, id); exists(t, c, jk) {
			left++
			if id != act.ID {
				t.Errorf("drain left the row of pending job %s", id)
			}
		}
	}
	if left != 1 {
		t.Errorf("rows left after drain: %d (want only the active one)", left)
	}
}

func TestFenceWithSlowWorker(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	q := "webhooks"
	if _, err := Enqueue(ctx, c, q, nil); err != nil {
		t.Fatal(err)
	}
	slow, _, _ := Claim(ctx, c, q, 30*time.Millisecond)
	vtest.UntilExpired(t, c, q, 1)
	if n, err := RequeueExpired(ctx, c, q, 0); err != nil || n != 1 {
		t.Fatalf("reap = %d, %v", n, err)
	}
	second, _, _ := Claim(ctx, c, q, time.Minute)
	if second.ID != slow.ID || second.Attempts != slow.Attempts+1 {
		t.Fatalf("re-claim = %+v after %+v", second, slow)
	}
	if err := Ack(ctx, c, q, slow.ID, slow.Attempts); !errors.Is(err, ErrFenced) {
		t.Fatalf("slow worker's late ack = %v, want ErrFenced", err)
	}
	if err := Ack(ctx, c, q, second.ID, second.Attempts); err != nil {
		t.Fatalf("second worker's ack = %v", err)
	}
}

func TestQueuesSharingASlot(t *testing.T) {
	_, c := vtest.Cluster(t, 3)
	a, b := keyspace.SlotMates("tenant-")
	if keyspace.QueueSlot(a) != keyspace.QueueSlot(b) {
		t.Fatal("not a pair")
	}
	ia, _ := Enqueue(ctx, c, a, []byte("A"))
	ib, _ := Enqueue(ctx, c, b, []byte("B"))
	ja, _, _ := Claim(ctx, c, a, time.Minute)
	jb, _, _ := Claim(ctx, c, b, time.Minute)
	if ja.ID != ia || jb.ID != ib || string(ja.Payload) != "A" || string(jb.Payload) != "B" {
		t.Fatalf("claims crossed queues: %+v %+v", ja, jb)
	}
	if err := Ack(ctx, c, a, jb.ID, jb.Attempts); !errors.Is(err, ErrNotActive) {
		t.Errorf("ack of b's job on a = %v, want ErrNotActive", err)
	}
	if Ack(ctx, c, a, ja.ID, 1) != nil || Ack(ctx, c, b, jb.ID, 1) != nil {
		t.Error("acks failed")
	}
}

func TestNewJobIDMonotonicAndValid(t *testing.T) {
	prev := NewJobID()
	for i := 0; i < 10000; i++ {
		id := NewJobID()
		if id <= prev {
			t.Fatalf("id %s not after %s", id, prev)
		}
		if err := keyspace.ValidateJobID(id); err != nil {
			t.Fatalf("minted an id the gate refuses: %v", err)
		}
		prev = id
	}
}
