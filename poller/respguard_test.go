package poller

import (
	"strings"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/testcluster"
)

// Valid replies pass the scanner whole, however the reads cut them.
func TestRespScannerPassesValidReplies(t *testing.T) {
	stream := "+OK\r\n-ERR x\r\n:42\r\n$5\r\nhe\r\no\r\n$-1\r\n*-1\r\n*0\r\n" +
		"*3\r\n$3\r\nfoo\r\n*2\r\n:1\r\n%1\r\n+k\r\n~2\r\n#t\r\n_\r\n,1.5\r\n" +
		"|1\r\n+ttl\r\n:3\r\n$2\r\nok\r\n>2\r\n+message\r\n=7\r\ntxt:abc\r\n(123\r\n" +
		"*2\r\n" + "$" + "10\r\n0123456789\r\n" + "!3\r\nbad\r\n"
	for size := 1; size <= len(stream); size++ {
		var s respScanner
		for i := 0; i < len(stream); i += size {
			if err := s.scan([]byte(stream[i:min(len(stream), i+size)])); err != nil {
				t.Fatalf("reads of %d bytes: %v", size, err)
			}
		}
		if len(s.stack) != 0 || s.skip != 0 || len(s.line) != 0 {
			t.Fatalf("reads of %d bytes: ends mid-value (stack %v, skip %d, line %q)", size, s.stack, s.skip, s.line)
		}
	}
}

// A server that declares what no reply of emqtop's needs fails its
// connection with the reason, at once; the process lives (it died out of
// memory within 0.03 s on *2000000000).
func TestHostileReplyHeaders(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		{"a huge array", "*2000000000\r\n", "an aggregate of 2000000000 elements"},
		{"a huge map", "%2000000000\r\n", "an aggregate of 4000000000 elements"},
		{"a huge string", "$9000000000\r\n", "a string of 9000000000 bytes"},
		{"a deep array", strings.Repeat("*1\r\n", 2_000_000), "more than 64 deep"},
		{"a line with no end", "+" + strings.Repeat("x", 2<<20), "a line of more than"},
		{"no RESP", "HTTP/1.1 400 Bad Request\r\n\r\n", "not as Valkey or Redis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := testcluster.FakeServer(t, tc.reply)
			_, err := Connect(Config{Addrs: []string{addr}, Timeout: 5 * time.Second, Standalone: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("connect to a server answering %s: %v; want an error saying %q", tc.name, err, tc.want)
			}
		})
	}
}
