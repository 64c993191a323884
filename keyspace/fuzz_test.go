package keyspace

import (
	"errors"
	"strings"
	"testing"
)

// FuzzSlot checks Hashtag and Slot against the rule written out the slow way.
func FuzzSlot(f *testing.F) {
	for _, s := range []string{"", "{}", "foo{}{bar}", "{{a}}", "a{b", "}{", "emq:{orders}:pending", "\xff{\x00}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		tag := key
		if i := strings.IndexByte(key, '{'); i >= 0 {
			if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
				tag = key[i+1 : i+1+j]
			}
		}
		if got := Hashtag(key); got != tag {
			t.Fatalf("Hashtag(%q) = %q, want %q", key, got, tag)
		}
		if s := Slot(key); s >= SlotCount || s != Slot(tag) {
			t.Fatalf("Slot(%q) = %d, Slot(tag) = %d", key, s, Slot(tag))
		}
	})
}

// FuzzParseRoundTrip: every key the builder makes parses back to its parts,
// lands on the queue's slot, and every name the builder refuses is refused
// with ErrInvalidQueue.
func FuzzParseRoundTrip(f *testing.F) {
	f.Add("orders", 0)
	f.Add("a}b", 1)
	f.Add("emq", 2)
	f.Add("\x1b[31m", 3)
	f.Add("ナ", 4)
	f.Fuzz(func(t *testing.T, queue string, n int) {
		types := append(QueueTypes[:len(QueueTypes):len(QueueTypes)], "job")
		typ := types[uint(n)%uint(len(types))]
		var key string
		var err error
		if typ == "job" {
			key, err = JobKey(queue, goodID)
		} else {
			key, err = QueueKey(queue, typ)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidQueue) || ValidateQueue(queue) == nil {
				t.Fatalf("builder refused %q with %v", queue, err)
			}
			return
		}
		k, err := Parse(key)
		if err != nil {
			t.Fatalf("Parse(%q) = %v", key, err)
		}
		if k.Queue != queue || k.Type != typ || k.String() != key {
			t.Fatalf("Parse(%q) = %+v", key, k)
		}
		if Slot(key) != QueueSlot(queue) {
			t.Fatalf("Slot(%q) = %d, QueueSlot = %d", key, Slot(key), QueueSlot(queue))
		}
	})
}
