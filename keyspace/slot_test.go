package keyspace

import (
	"math/rand/v2"
	"testing"

	"github.com/echomq/emqtop/internal/testcluster"
)

func TestSeedVectors(t *testing.T) {
	if got := crc16("123456789"); got != 0x31C3 {
		t.Errorf("crc16(123456789) = %#x, want 0x31C3", got)
	}
	id := "JOB01HZX3K2M4N5P6Q7R8S9T0VWXY"
	for _, tc := range []struct {
		key  string
		want uint16
	}{
		{"123456789", 12739},
		{"emq:{orders}:pending", 105},
		{"emq:{orders}:active", 105},
		{"emq:{orders}:job:" + id, 105},
		{"emq:{fills}:pending", 4165},
		{"emq:{fills}:meta", 4165},
		{"user:profile", 1391},
		{"user:settings", 3618},
	} {
		if got := Slot(tc.key); got != tc.want {
			t.Errorf("Slot(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
	if QueueSlot("orders") != 105 || QueueSlot("fills") != 4165 {
		t.Errorf("QueueSlot(orders, fills) = %d, %d", QueueSlot("orders"), QueueSlot("fills"))
	}
}

func TestHashtagEdges(t *testing.T) {
	for _, tc := range []struct{ key, tag string }{
		{"{}", "{}"},
		{"foo{}{bar}", "foo{}{bar}"}, // the first '{' has an empty tag: whole key
		{"{{a}}", "{a"},
		{"a{b", "a{b"},
		{"}{", "}{"},
		{"x{y}z", "y"},
		{"{a}{b}", "a"},
		{"emq:{ナ}:pending", "ナ"},
		{"emq:{\xff\xfe}:pending", "\xff\xfe"},
		{"", ""},
		{"{", "{"},
		{"{}a}", "{}a}"},
	} {
		if got := Hashtag(tc.key); got != tc.tag {
			t.Errorf("Hashtag(%q) = %q, want %q", tc.key, got, tc.tag)
		}
		if got, want := Slot(tc.key), crc16(tc.tag)%SlotCount; got != want {
			t.Errorf("Slot(%q) = %d, want crc16(%q) = %d", tc.key, got, tc.tag, want)
		}
	}
}

// randomKey builds keys of random bytes with braces at random places.
func randomKey(r *rand.Rand) string {
	b := make([]byte, 1+r.IntN(30))
	for i := range b {
		switch r.IntN(8) {
		case 0:
			b[i] = '{'
		case 1:
			b[i] = '}'
		default:
			b[i] = byte(r.IntN(256))
		}
	}
	return string(b)
}

// TestSlotMatchesServer compares Slot with the server's CLUSTER KEYSLOT on
// 10,000 random keys.
func TestSlotMatchesServer(t *testing.T) {
	c := testcluster.ForTest(t, testcluster.Options{Primaries: 1})
	conn, err := testcluster.Dial(c.Nodes[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		k := randomKey(r)
		v, err := conn.Do("CLUSTER", "KEYSLOT", k)
		if err != nil {
			t.Fatalf("CLUSTER KEYSLOT %q: %v", k, err)
		}
		if got := int64(Slot(k)); got != v.(int64) {
			t.Fatalf("Slot(%q) = %d, server says %d", k, got, v)
		}
	}
}

func BenchmarkSlot(b *testing.B) {
	key := "emq:{orders}:pending" // 20 bytes
	var s uint16
	for b.Loop() {
		s += Slot(key)
	}
	_ = s
}

func BenchmarkSlotNoTag(b *testing.B) {
	key := "user:profile:1234567" // 20 bytes, no hashtag: the whole key hashes
	var s uint16
	for b.Loop() {
		s += Slot(key)
	}
	_ = s
}

// TestLuaGateMatchesGo runs LuaJobIDGate on a real server over ids that
// ValidateJobID accepts and refuses, and wants the same verdict.
func TestLuaGateMatchesGo(t *testing.T) {
	c := testcluster.ForTest(t, testcluster.Options{})
	conn, err := testcluster.Dial(c.Nodes[0].Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	script := LuaJobIDGate + "if valid_id(ARGV[1]) then return 1 else return 0 end"
	ids := []string{goodID, newID(), "JOB81HZX3K2M4N5P6Q7R8S9T0VWXY", "JOB01HZX3K2M4N5P6Q7R8S9T0VWXI",
		"JOB01hzx3k2m4n5p6q7r8s9t0vwxy", "JOB01HZX3K2M4N5P6Q7R8S9T0VWX", "x}:evil", "", "JOB01HZX3K2M4N5P6Q7R8S9T0VWX\n",
		"JOB01HZX3K2M4N5P6Q7R8S9T0VWXU", "JOB01HZX3K2M4N5P6Q7R8S9T0VWXL", "JOB01HZX3K2M4N5P6Q7R8S9T0VWXO"}
	for _, id := range ids {
		v, err := conn.Do("EVAL", script, "0", id)
		if err != nil {
			t.Fatalf("EVAL: %v", err)
		}
		if lua, gov := v.(int64) == 1, ValidateJobID(id) == nil; lua != gov {
			t.Errorf("%q: Lua says %v, Go says %v", id, lua, gov)
		}
	}
}
