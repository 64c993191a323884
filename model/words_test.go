package model

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 queues"}, {1, "1 queue"}, {2, "2 queues"}, {5000, "5,000 queues"}, {-1234567, "-1,234,567 queues"}} {
		if got := Count(tc.n, "queue", "queues"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
