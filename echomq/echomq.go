// Package echomq is every write emqtop makes to an EchoMQ queue: enqueue,
// claim, ack, requeue, requeue-expired and drain, each one embedded Lua
// script over one queue's keys (one slot), sent with EVALSHA and falling
// back to EVAL on NOSCRIPT. Every key comes from package keyspace.
package echomq

import (
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

// Job is a claimed job.
type Job struct {
	ID       string
	Payload  []byte
	Attempts int64 // the fencing token
}

// Refusals, matched with errors.Is.
var (
	// ErrFenced: the job's attempts differ from the token given: a worker
	// claimed it again after the caller looked.
	ErrFenced = errors.New("fenced: the job was claimed again")
	// ErrNotActive: the job is not in the queue's active set.
	ErrNotActive = errors.New("the job is not active")
	// ErrWrongType: a key of the queue holds the wrong type.
	ErrWrongType = errors.New("wrong type")
	// ErrBadID: a set of the queue holds a member that is not a job id.
	ErrBadID = errors.New("invalid job id in the queue")
)

// FenceError says what the attempts counter was when the fence refused.
type FenceError struct {
	Queue, ID string
	Want, Got int64 // the token given and the one the job has now (-1: none, or not a number)
	// GotRaw is the attempts field as the row holds it: "" when the row
	// has none, else the text (a number, or what is there instead).
	GotRaw string
}

// Reason says why the fence refused, in the one wording the audit log,
// the commands and the dashboard all use.
func (e *FenceError) Reason() string {
	switch {
	case e.GotRaw == "":
		return fmt.Sprintf("the job row has no attempts field, so no token matches it (%d given)", e.Want)
	case e.Got < 0:
		return fmt.Sprintf("its attempts field holds %s, not a number, so no token matches it (%d given)", strconv.QuoteToGraphic(e.GotRaw), e.Want)
	}
	return fmt.Sprintf("its attempts are %d, not %d: claimed again since, or the value given is not the one shown", e.Got, e.Want)
}

func (e *FenceError) Error() string {
	return fmt.Sprintf("%s/%s: fenced: %s", keyspace.Quote(e.Queue), e.ID, e.Reason())
}

// Is makes errors.Is(err, ErrFenced) hold.
func (e *FenceError) Is(target error) bool { return target == ErrFenced }

//go:embed lua/prelude.lua
var prelude string

//go:embed lua/enqueue.lua
var enqueueLua string

//go:embed lua/claim.lua
var claimLua string

//go:embed lua/ack.lua
var ackLua string

//go:embed lua/requeue.lua
var requeueLua string

//go:embed lua/requeue_expired.lua
var requeueExpiredLua string

//go:embed lua/drain.lua
var drainLua string

var (
	enqueueScript        = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + enqueueLua)
	claimScript          = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + claimLua)
	ackScript            = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + ackLua)
	requeueScript        = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + requeueLua)
	requeueExpiredScript = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + requeueExpiredLua)
	drainScript          = valkey.NewLuaScript(keyspace.LuaJobIDGate + prelude + drainLua)
)

// DrainBatch is the most pending jobs one drain script removes.
const DrainBatch = 1000

// scriptErr turns a script's error reply into a Go error naming the queue;
// EMQ-prefixed replies become the matching sentinel.
func scriptErr(op, queue string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "EMQWRONGTYPE"):
		_, rest, _ := strings.Cut(msg, "EMQWRONGTYPE ")
		return fmt.Errorf("%s %s: %w: %s", op, keyspace.Quote(queue), ErrWrongType, rest)
	case strings.Contains(msg, "WRONGTYPE"):
		return fmt.Errorf("%s %s: %w: %s", op, keyspace.Quote(queue), ErrWrongType, msg)
	case strings.Contains(msg, "EMQBADID"):
		_, rest, _ := strings.Cut(msg, "EMQBADID ")
		return fmt.Errorf("%s %s: %w: %s", op, keyspace.Quote(queue), ErrBadID, rest)
	}
	return fmt.Errorf("%s %s: %w", op, keyspace.Quote(queue), err)
}

// Enqueue adds a pending job with a new id and returns the id.
func Enqueue(ctx context.Context, c valkey.Client, queue string, payload []byte) (string, error) {
	keys, err := keyspace.KeysOf(queue)
	if err != nil {
		return "", err
	}
	id := NewJobID()
	job, err := keyspace.JobKey(queue, id)
	if err != nil {
		return "", err
	}
	err = enqueueScript.Exec(ctx, c, []string{keys.Pending, job}, []string{id, string(payload)}).Error()
	return id, scriptErr("enqueue", queue, err)
}

// Claim pops the lowest pending job, increments its attempts and leases it
// for lease on the server clock. ok is false when nothing was pending.
func Claim(ctx context.Context, c valkey.Client, queue string, lease time.Duration) (Job, bool, error) {
	keys, err := keyspace.KeysOf(queue)
	if err != nil {
		return Job{}, false, err
	}
	if lease <= 0 {
		return Job{}, false, fmt.Errorf("claim %s: lease must be positive, not %v", keyspace.Quote(queue), lease)
	}
	arr, err := claimScript.Exec(ctx, c, []string{keys.Pending, keys.Active},
		[]string{keys.JobPrefix, strconv.FormatInt(lease.Milliseconds(), 10)}).ToArray()
	if err != nil {
		return Job{}, false, scriptErr("claim", queue, err)
	}
	if len(arr) == 0 {
		return Job{}, false, nil
	}
	if len(arr) != 3 {
		return Job{}, false, fmt.Errorf("claim %s: unexpected reply of %d elements", keyspace.Quote(queue), len(arr))
	}
	id, _ := arr[0].ToString()
	payload, _ := arr[1].ToString()
	attempts, err := arr[2].AsInt64()
	if err != nil {
		return Job{}, false, fmt.Errorf("claim %s: attempts: %w", keyspace.Quote(queue), err)
	}
	return Job{ID: id, Payload: []byte(payload), Attempts: attempts}, true, nil
}

// fenced runs ack or requeue: both apply only to an active job whose
// attempts equal the token.
func fenced(ctx context.Context, c valkey.Client, op string, s *valkey.Lua, queue, id string, attempts int64, withPending bool) error {
	keys, err := keyspace.KeysOf(queue)
	if err != nil {
		return err
	}
	job, err := keyspace.JobKey(queue, id)
	if err != nil {
		return err
	}
	k := []string{keys.Active, job}
	if withPending {
		k = []string{keys.Pending, keys.Active, job}
	}
	var arr []string
	err = TryAgain(ctx, func() (err error) {
		arr, err = s.Exec(ctx, c, k, []string{id, strconv.FormatInt(attempts, 10)}).AsStrSlice()
		return err
	})
	if err != nil {
		return scriptErr(op, queue, err)
	}
	switch {
	case len(arr) == 1 && arr[0] == "ok":
		return nil
	case len(arr) == 1 && arr[0] == "notactive":
		return fmt.Errorf("%s %s/%s: %w", op, keyspace.Quote(queue), id, ErrNotActive)
	case len(arr) == 2 && arr[0] == "fenced":
		got, err := strconv.ParseInt(arr[1], 10, 64)
		if err != nil {
			got = -1
		}
		return fmt.Errorf("%s: %w", op, &FenceError{Queue: queue, ID: id, Want: attempts, Got: got, GotRaw: arr[1]})
	}
	return fmt.Errorf("%s %s: unexpected reply %q", op, keyspace.Quote(queue), arr)
}

// Ack completes an active job whose attempts equal the token: the id leaves
// active and the job row is deleted.
func Ack(ctx context.Context, c valkey.Client, queue, id string, attempts int64) error {
	return fenced(ctx, c, "ack", ackScript, queue, id, attempts, false)
}

// Requeue moves an active job whose attempts equal the token back to
// pending; attempts are unchanged.
func Requeue(ctx context.Context, c valkey.Client, queue, id string, attempts int64) error {
	return fenced(ctx, c, "requeue", requeueScript, queue, id, attempts, true)
}

// RequeueExpired moves up to limit active jobs whose lease ran out (deadline
// at or before the server's now) back to pending, in scripts of at most
// 1,000; limit <= 0 means all of them.
func RequeueExpired(ctx context.Context, c valkey.Client, queue string, limit int) (int, error) {
	keys, err := keyspace.KeysOf(queue)
	if err != nil {
		return 0, err
	}
	moved := 0
	for limit <= 0 || moved < limit {
		batch := DrainBatch
		if limit > 0 {
			batch = min(batch, limit-moved)
		}
		var n int64
		err := TryAgain(ctx, func() (err error) {
			n, err = requeueExpiredScript.Exec(ctx, c, []string{keys.Pending, keys.Active},
				[]string{keys.JobPrefix, strconv.Itoa(batch)}).AsInt64()
			return err
		})
		if err != nil {
			return moved, scriptErr("requeue-expired", queue, err)
		}
		moved += int(n)
		if int(n) < batch {
			break
		}
	}
	return moved, nil
}

// DrainStep removes up to batch pending jobs (ids and rows) in one script
// and says how many are left. Active jobs are untouched.
func DrainStep(ctx context.Context, c valkey.Client, queue string, batch int) (removed, left int, err error) {
	keys, err := keyspace.KeysOf(queue)
	if err != nil {
		return 0, 0, err
	}
	if batch <= 0 || batch > DrainBatch {
		batch = DrainBatch
	}
	var v []int64
	err = TryAgain(ctx, func() (err error) {
		v, err = drainScript.Exec(ctx, c, []string{keys.Pending}, []string{keys.JobPrefix, strconv.Itoa(batch)}).AsIntSlice()
		return err
	})
	if err != nil {
		return 0, 0, scriptErr("drain", queue, err)
	}
	if len(v) != 2 {
		return 0, 0, fmt.Errorf("drain %s: unexpected reply", keyspace.Quote(queue))
	}
	return int(v[0]), int(v[1]), nil
}

// Drain removes every pending job, 1,000 per script, until none is left
// pending or ctx ends. Active jobs are untouched.
func Drain(ctx context.Context, c valkey.Client, queue string) (int, error) {
	total := 0
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, left, err := DrainStep(ctx, c, queue, DrainBatch)
		total += n
		if err != nil || left == 0 || n == 0 {
			return total, err
		}
	}
}

// Version reads the protocol version fence, "" when it is unset.
func Version(ctx context.Context, c valkey.Client) (string, error) {
	v, err := c.Do(ctx, c.B().Get().Key(keyspace.VersionKey).Build()).ToString()
	if valkey.IsValkeyNil(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", keyspace.VersionKey, err)
	}
	return v, nil
}

var (
	idMu      sync.Mutex
	idEntropy = ulid.Monotonic(rand.Reader, 0)
)

// NewJobID mints a branded id (the brand and a ULID, whose first 48 bits
// are the time), monotonic within this process. It is the producer's: the
// keyspace only checks ids.
func NewJobID() string {
	idMu.Lock()
	defer idMu.Unlock()
	return keyspace.JobIDPrefix + ulid.MustNew(ulid.Timestamp(time.Now()), idEntropy).String()
}
