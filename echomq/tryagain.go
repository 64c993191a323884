package echomq

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/valkey-io/valkey-go"
)

// TryAgainFor is how long a command refused with TRYAGAIN is tried again,
// at most: a context that ends sooner bounds it too.
const TryAgainFor = 5 * time.Second

// tryAgainFor is the bound TryAgain applies: TryAgainFor, lifted by the
// test that proves a requeue across a move is done whole once the move
// ends, however long a loaded machine takes to end it.
var tryAgainFor = TryAgainFor

// ErrSlotMoving: the server kept refusing a multi-key command with
// TRYAGAIN, its slot being migrated with the keys split between two nodes;
// nothing was run.
var ErrSlotMoving = errors.New("the queue's slot is being migrated (TRYAGAIN): nothing was written")

// MaxRedirects is how many MOVED and ASK redirections one command follows
// (poller.Config's clients set it): valkey-go's default follows them for
// ever, and two nodes that disagree about a moving slot (the source asks
// the target, the target sends it back) kept a requeue spinning until the
// process was killed. A command that runs out of them comes back with the
// last redirection, which TryAgain tries again like TRYAGAIN.
const MaxRedirects = 8

// TryAgain runs do until it is not refused for a slot that is moving,
// backing off from 10 ms to 250 ms, for TryAgainFor at most, or until ctx's
// deadline, which ends it the same way: ErrSlotMoving. The server answers
// TRYAGAIN to a command on several keys of a migrating slot when some have
// moved and some not, and MOVED or ASK to one it does not serve, each
// before running anything, so running it again is safe for a write too
// (valkey-go follows ASK and MOVED itself, up to MaxRedirects, not
// TRYAGAIN).
func TryAgain(ctx context.Context, do func() error) error {
	deadline := time.Now().Add(tryAgainFor)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	began := time.Now()
	wait := 10 * time.Millisecond
	for {
		err := do()
		if !refusedForMove(err) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("%w for %v; try again when the migration has ended (%v)", ErrSlotMoving, time.Since(began).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// refusedForMove: the server refused err's command before running it
// because of where the slot is: TRYAGAIN, or a redirection valkey-go
// stopped following (MaxRedirects).
func refusedForMove(err error) bool {
	var ve *valkey.ValkeyError
	if !errors.As(err, &ve) {
		return false
	}
	_, moved := ve.IsMoved()
	_, asked := ve.IsAsk()
	return ve.IsTryAgain() || moved || asked
}

// ServerCode is the code of the server's error reply in err ("NOPERM",
// "TRYAGAIN", "WRONGTYPE": its first word, which is what the protocol
// makes a code), "" when err holds none.
func ServerCode(err error) string {
	var ve *valkey.ValkeyError
	if !errors.As(err, &ve) {
		return ""
	}
	code, _, _ := strings.Cut(ve.Error(), " ")
	return code
}

// TimedOut reports whether err is a wait that ran out (a context's
// deadline, a connection's timeout), not a refusal.
func TimedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
