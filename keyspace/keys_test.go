package keyspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/oklog/ulid/v2"
)

const goodID = "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY"

func TestValidateQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule string // "" means valid
	}{
		{"orders", ""},
		{"a", ""},
		{strings.Repeat("x", 200), ""},
		{"ナ-queue", ""},
		{"", "empty"},
		{strings.Repeat("x", 201), "200 bytes"},
		{"emq", "reserved"},
		{"a{b", "'{' or '}'"},
		{"a}b", "'{' or '}'"},
		{"a\x1b[2Jb", "control"},
		{"a\x7f", "control"},
		{"a\nb", "control"},
		{"\xff", "UTF-8"},
		{"a\u009b31mb", "control character (C1)"},
		{"\u0080", "C1"},
		{"a\u009f", "C1"},
		{"a\u00a0b", ""}, // no-break space: printable, allowed
		{"a\u202eb", ""}, // a format rune is allowed in a name; the display gate escapes it
	} {
		err := ValidateQueue(tc.name)
		if tc.rule == "" {
			if err != nil {
				t.Errorf("ValidateQueue(%q) = %v, want nil", tc.name, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrInvalidQueue) || !strings.Contains(err.Error(), tc.rule) {
			t.Errorf("ValidateQueue(%q) = %v, want ErrInvalidQueue naming %q", tc.name, err, tc.rule)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\n\x7f") {
			t.Errorf("error repeats raw control bytes: %q", err.Error())
		}
	}
}

func TestErrorQuotingIsBounded(t *testing.T) {
	err := ValidateQueue(strings.Repeat("\x1b]52;c;", 2000))
	if err == nil || len(err.Error()) > 400 || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("error not bounded or not escaped: %d bytes: %.100q", len(err.Error()), err)
	}
	if !strings.Contains(err.Error(), "14000 bytes") {
		t.Errorf("error does not say how long the input was: %v", err)
	}
}

func TestValidateJobID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{goodID, true},
		{newID(), true},
		{"JOB01HZX3K2M4N5P6Q7R8S9T0VWX", false},   // 25
		{"JOB01HZX3K2M4N5P6Q7R8S9T0VWXYZ", false}, // 27
		{"job01HZX3K2M4N5P6Q7R8S9T0VWXY", false},
		{"JOB01hzx3k2m4n5p6q7r8s9t0vwxy", false}, // lower case
		{"JOB01HZX3K2M4N5P6Q7R8S9T0VWXI", false}, // I is not Crockford
		{"JOB81HZX3K2M4N5P6Q7R8S9T0VWXY", false}, // overflows 128 bits
		{"x}:evil", false},
		{"", false},
	} {
		err := ValidateJobID(tc.id)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidJobID)) {
			t.Errorf("ValidateJobID(%q) = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
}

// newID is a valid id for the tests (ids are minted by the producer,
// echomq.NewJobID).
func newID() string { return JobIDPrefix + ulid.Make().String() }

func TestBuilders(t *testing.T) {
	for _, typ := range QueueTypes {
		k, err := QueueKey("orders", typ)
		if err != nil || k != "emq:{orders}:"+typ {
			t.Errorf("QueueKey(orders, %s) = %q, %v", typ, k, err)
		}
	}
	if _, err := QueueKey("orders", "job"); !errors.Is(err, ErrInvalidType) {
		t.Errorf("QueueKey(orders, job) = %v, want ErrInvalidType", err)
	}
	if _, err := QueueKey("a}b", TypePending); !errors.Is(err, ErrInvalidQueue) {
		t.Errorf("QueueKey(a}b) = %v", err)
	}
	if k, err := JobKey("orders", goodID); err != nil || k != "emq:{orders}:job:"+goodID {
		t.Errorf("JobKey = %q, %v", k, err)
	}
	if _, err := JobKey("orders", "x}:evil"); !errors.Is(err, ErrInvalidJobID) {
		t.Errorf("JobKey(x}:evil) = %v, want ErrInvalidJobID", err)
	}
	if p, err := JobPrefix("orders"); err != nil || p != "emq:{orders}:job:" {
		t.Errorf("JobPrefix = %q, %v", p, err)
	}
	if VersionKey != "{emq}:version" {
		t.Errorf("VersionKey = %q", VersionKey)
	}
	ks, err := KeysOf("orders")
	if err != nil || ks.Pending != "emq:{orders}:pending" || ks.JobPrefix != "emq:{orders}:job:" {
		t.Errorf("KeysOf = %+v, %v", ks, err)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want Key
		err  error
	}{
		{"emq:{orders}:pending", Key{Queue: "orders", Type: "pending"}, nil},
		{"emq:{orders}:meta", Key{Queue: "orders", Type: "meta"}, nil},
		{"emq:{orders}:job:" + goodID, Key{Queue: "orders", Type: "job", JobID: goodID}, nil},
		{"{emq}:version", Key{}, ErrReserved},
		{"user:profile", Key{}, ErrNotEchoMQ},
		{"emq:orders:pending", Key{}, ErrMalformed}, // a producer that forgot the hashtag
		{"emqx:orders", Key{}, ErrNotEchoMQ},
		{"emq:{}:pending", Key{}, ErrMalformed},
		{"emq:{a:pending", Key{}, ErrMalformed},
		{"emq:{a}}:pending", Key{}, ErrMalformed},
		{"emq:{a}pending", Key{}, ErrMalformed},
		{"emq:{a}:job:nope", Key{}, ErrInvalidJobID},
		{"emq:{a}:job:x}:evil", Key{}, ErrMalformed},
		{"emq:{a}:lanes", Key{}, ErrInvalidType},
		{"emq:{emq}:pending", Key{}, ErrInvalidQueue},
		{"emq:{\xff}:pending", Key{}, ErrMalformed},
		{"emq:{" + strings.Repeat("q", 10240) + "}:pending", Key{}, ErrMalformed},
	} {
		got, err := Parse(tc.key)
		if tc.err == nil {
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.key, got, err, tc.want)
			}
			if got.String() != tc.key {
				t.Errorf("Parse(%q).String() = %q", tc.key, got.String())
			}
			continue
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("Parse(%.60q) = %v, want %v", tc.key, err, tc.err)
		}
		if strings.HasPrefix(tc.key, "emq:orders") && !strings.Contains(err.Error(), "CROSSSLOT") {
			t.Errorf("Parse(%q) does not name the missing hashtag: %v", tc.key, err)
		}
	}
}

func TestSlotMates(t *testing.T) {
	a, b := SlotMates("tenant-")
	if a == b || QueueSlot(a) != QueueSlot(b) || ValidateQueue(a) != nil || ValidateQueue(b) != nil {
		t.Errorf("SlotMates = %q %q (slots %d %d)", a, b, QueueSlot(a), QueueSlot(b))
	}
}

func TestJobPattern(t *testing.T) {
	id := "JOB01JDS8X4K2M4N5P6Q7R8S9T0VW"
	if p, err := JobPattern(id); err != nil || p != "emq:{*}:job:"+id {
		t.Errorf("JobPattern: %q %v", p, err)
	}
	if _, err := JobPattern("x}:*"); err == nil {
		t.Error("a pattern of an id that is not one")
	}
}

// KeysOf's keys are each key of the queue, made in one allocation.
func TestKeysOfOneAllocation(t *testing.T) {
	k, err := KeysOf("tenant-00042")
	want := QueueKeys{Pending: "emq:{tenant-00042}:pending", Active: "emq:{tenant-00042}:active",
		Schedule: "emq:{tenant-00042}:schedule", Meta: "emq:{tenant-00042}:meta", JobPrefix: "emq:{tenant-00042}:job:"}
	if err != nil || k != want {
		t.Errorf("KeysOf = %+v, %v", k, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = KeysOf("tenant-00042") }); n > 1 {
		t.Errorf("KeysOf allocates %v times", n)
	}
}
