package keyspace

import (
	"errors"
	"fmt"
	"strconv"
)

// The kinds of refusal, matched with errors.Is.
var (
	// ErrInvalidQueue: a queue name breaks the naming rule.
	ErrInvalidQueue = errors.New("invalid queue name")
	// ErrInvalidJobID: a job id is not the branded JOB+ULID form.
	ErrInvalidJobID = errors.New("invalid job id")
	// ErrInvalidType: a key type the grammar does not know.
	ErrInvalidType = errors.New("invalid key type")
	// ErrNotEchoMQ: the key does not start with "emq:{"; it is someone else's.
	ErrNotEchoMQ = errors.New("not an EchoMQ key")
	// ErrReserved: the key lies in the protocol's own "{emq}:" space.
	ErrReserved = errors.New("reserved EchoMQ key")
	// ErrMalformed: the key starts like EchoMQ's but breaks the grammar.
	ErrMalformed = errors.New("malformed EchoMQ key")
)

// Error is a refusal that names the rule broken and the input, quoted so it
// is safe to print on any terminal.
type Error struct {
	Kind  error  // one of the Err* values above
	Rule  string // the rule that was broken, in words
	Input string // the offending input, raw; Error() quotes it
	Cause error  // for a malformed key, the refusal of the part inside it
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%v %s: %s", e.Kind, Quote(e.Input), e.Rule)
	if e.Cause != nil {
		msg += " (" + e.Cause.Error() + ")"
	}
	return msg
}

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// quoteLimit bounds how much of an input an error repeats.
const quoteLimit = 64

// Quote renders s as a Go-quoted string, with control bytes, escape
// sequences and invalid UTF-8 escaped, cut to a bounded length so a hostile
// 10 KB name cannot flood a log line.
func Quote(s string) string {
	if len(s) <= quoteLimit {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:quoteLimit]) + fmt.Sprintf("…(%d bytes)", len(s))
}

func refuse(kind error, input, rule string) error {
	return &Error{Kind: kind, Rule: rule, Input: input}
}
