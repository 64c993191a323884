package keyspace

import "strings"

// Key is an EchoMQ key read back into its parts.
type Key struct {
	Queue string // the queue name, the hashtag
	Type  string // pending, active, schedule, meta or job
	JobID string // for Type job, the id
}

// Parse reads any key back into queue, type and job id. A key that does not
// start with "emq:" is ErrNotEchoMQ; one in "{emq}:" is ErrReserved; one that
// starts like EchoMQ's ("emq:") and breaks the grammar is ErrMalformed, with the
// refusal of the part inside it as its cause.
func Parse(key string) (Key, error) {
	if strings.HasPrefix(key, reserved) {
		return Key{}, refuse(ErrReserved, key, `keys under "{emq}:" belong to the protocol, not to a queue`)
	}
	if !strings.HasPrefix(key, prefix) {
		if strings.HasPrefix(key, namespace) {
			// the producer's classic mistake: its keys spread over slots
			return Key{}, refuse(ErrMalformed, key, "no hashtag: a producer wrote emq:<queue>:<type> instead of "+
				"emq:{<queue>}:<type>, so its keys land in different slots and its scripts fail with CROSSSLOT")
		}
		return Key{}, refuse(ErrNotEchoMQ, key, `an EchoMQ key starts with "emq:{"`)
	}
	rest := key[len(prefix):]
	end := strings.IndexByte(rest, '}')
	if end < 0 {
		return Key{}, refuse(ErrMalformed, key, "the queue's brace is never closed")
	}
	queue := rest[:end]
	if err := ValidateQueue(queue); err != nil {
		return Key{}, &Error{Kind: ErrMalformed, Input: key, Rule: "the braced queue name is invalid", Cause: err}
	}
	rest = rest[end+1:]
	if !strings.HasPrefix(rest, ":") {
		return Key{}, refuse(ErrMalformed, key, `the brace must be followed by ":<type>"`)
	}
	typ := rest[1:]
	switch typ {
	case TypePending, TypeActive, TypeSchedule, TypeMeta:
		return Key{Queue: queue, Type: typ}, nil
	}
	if id, ok := strings.CutPrefix(typ, TypeJob+":"); ok {
		if err := ValidateJobID(id); err != nil {
			return Key{}, &Error{Kind: ErrMalformed, Input: key, Rule: "the job row's id is invalid", Cause: err}
		}
		return Key{Queue: queue, Type: TypeJob, JobID: id}, nil
	}
	return Key{}, &Error{Kind: ErrMalformed, Input: key, Rule: "unknown key type",
		Cause: refuse(ErrInvalidType, typ, "a key type is pending, active, schedule, meta or job:<id>")}
}

// String builds the key back; it is the inverse of Parse for a parsed Key.
func (k Key) String() string {
	if k.Type == TypeJob {
		return prefix + k.Queue + "}:job:" + k.JobID
	}
	return prefix + k.Queue + "}:" + k.Type
}
