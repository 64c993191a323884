package keyspace

import (
	"strings"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// The key types of a queue.
const (
	TypePending  = "pending"
	TypeActive   = "active"
	TypeSchedule = "schedule"
	TypeMeta     = "meta"
	TypeJob      = "job"
)

// QueueTypes are the per-queue key types QueueKey builds.
var QueueTypes = []string{TypePending, TypeActive, TypeSchedule, TypeMeta}

const (
	prefix   = namespace + "{"
	reserved = "{emq}:"
	// VersionKey holds the protocol version fence.
	VersionKey = reserved + "version"
	// MaxQueueLen is the longest queue name, in bytes.
	MaxQueueLen = 200
	// JobIDPrefix brands every job id.
	JobIDPrefix = "JOB"
	// JobIDLen is the length of a job id: the brand and a 26-character ULID.
	JobIDLen = len(JobIDPrefix) + ulid.EncodedSize
	// namespace starts every EchoMQ key.
	namespace = "emq:"
	// ScanPattern matches every key in EchoMQ's namespace for SCAN: the
	// queues' keys, and the ones that break the grammar (a brace never
	// closed, no hashtag at all), which discovery lists as foreign.
	ScanPattern = namespace + "*"
)

// ValidateQueue checks a queue name: 1 to 200 bytes of valid UTF-8, no '{',
// no '}', no control character (C0, DEL or C1), and not the reserved "emq".
func ValidateQueue(name string) error {
	switch {
	case name == "":
		return refuse(ErrInvalidQueue, name, "a queue name may not be empty")
	case len(name) > MaxQueueLen:
		return refuse(ErrInvalidQueue, name, "a queue name is at most 200 bytes")
	case name == "emq":
		return refuse(ErrInvalidQueue, name, `"emq" is reserved for the protocol`)
	case !utf8.ValidString(name):
		return refuse(ErrInvalidQueue, name, "a queue name must be valid UTF-8")
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '{' || c == '}':
			return refuse(ErrInvalidQueue, name, "a queue name may not contain '{' or '}'")
		case c < 0x20 || c == 0x7f:
			return refuse(ErrInvalidQueue, name, "a queue name may not contain a control character")
		case c == 0xc2 && i+1 < len(name) && name[i+1] >= 0x80 && name[i+1] <= 0x9f:
			// U+0080–U+009F, the C1 controls (U+009B is CSI), encoded C2 80–C2 9F
			return refuse(ErrInvalidQueue, name, "a queue name may not contain a control character (C1)")
		}
	}
	return nil
}

// crockford is the ULID alphabet: Crockford base32, upper case.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ValidateJobID checks the branded id: "JOB" and a 26-character upper-case
// Crockford base32 ULID.
func ValidateJobID(id string) error {
	if len(id) != JobIDLen || !strings.HasPrefix(id, JobIDPrefix) {
		return refuse(ErrInvalidJobID, id, "a job id is JOB followed by a 26-character ULID")
	}
	u := id[len(JobIDPrefix):]
	if u[0] > '7' {
		return refuse(ErrInvalidJobID, id, "the ULID's first character is at most 7")
	}
	for i := 0; i < len(u); i++ {
		if strings.IndexByte(crockford, u[i]) < 0 {
			return refuse(ErrInvalidJobID, id, "a ULID is upper-case Crockford base32")
		}
	}
	return nil
}

// QueueKey builds emq:{queue}:typ for typ pending, active, schedule or meta.
func QueueKey(queue, typ string) (string, error) {
	if err := ValidateQueue(queue); err != nil {
		return "", err
	}
	switch typ {
	case TypePending, TypeActive, TypeSchedule, TypeMeta:
		return prefix + queue + "}:" + typ, nil
	}
	return "", refuse(ErrInvalidType, typ, "a queue key type is pending, active, schedule or meta")
}

// JobPrefix is emq:{queue}:job:, the prefix a script appends a job id to.
func JobPrefix(queue string) (string, error) {
	if err := ValidateQueue(queue); err != nil {
		return "", err
	}
	return prefix + queue + "}:job:", nil
}

// JobPattern is the SCAN pattern of a job's row in any queue,
// emq:{*}:job:<id>, for a valid id (a find that knows no queue). An id
// holds no pattern character (the grammar), so it matches itself only.
func JobPattern(id string) (string, error) {
	if err := ValidateJobID(id); err != nil {
		return "", err
	}
	return prefix + "*}:job:" + id, nil
}

// JobKey builds emq:{queue}:job:<id> for a valid queue and a valid id.
func JobKey(queue, id string) (string, error) {
	p, err := JobPrefix(queue)
	if err != nil {
		return "", err
	}
	if err := ValidateJobID(id); err != nil {
		return "", err
	}
	return p + id, nil
}

// QueueKeys are the keys of one queue, built once.
type QueueKeys struct {
	Pending, Active, Schedule, Meta, JobPrefix string
}

// KeysOf builds every key of queue, or refuses the name. The keys are
// cut from one string (one allocation, not six: a poll builds them for
// each queue it reads), so one kept keeps the others' bytes too: they are
// for a command, not for keeping.
func KeysOf(queue string) (QueueKeys, error) {
	if err := ValidateQueue(queue); err != nil {
		return QueueKeys{}, err
	}
	b := prefix + queue + "}:"
	all := b + TypePending + b + TypeActive + b + TypeSchedule + b + TypeMeta + b + "job:"
	cut := func(kind string) string { // the next key off all
		k := all[:len(b)+len(kind)]
		all = all[len(k):]
		return k
	}
	return QueueKeys{Pending: cut(TypePending), Active: cut(TypeActive), Schedule: cut(TypeSchedule),
		Meta: cut(TypeMeta), JobPrefix: cut("job:")}, nil
}
