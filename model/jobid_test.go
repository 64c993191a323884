package model

import (
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func TestIDTime(t *testing.T) {
	at := time.Date(2026, 12, 4, 1, 2, 3, 456e6, time.UTC)
	id := "JOB" + ulid.MustNew(ulid.Timestamp(at), ulid.DefaultEntropy()).String()
	got, ok := IDTime(id)
	if !ok || !got.Equal(at) {
		t.Errorf("IDTime(%s) = %v, %v; want %v", id, got, ok, at)
	}
	for _, bad := range []string{"", "JOB", "job01HZX3K2M4N5P6Q7R8S9T0VWXY", "JOB01HZX3K2M4N5P6Q7R8S9T0VWX",
		"JOB8ZZZZZZZZZ5P6Q7R8S9T0VWXY", "JOB01HZX3K2MIN5P6Q7R8S9T0VWX", "JOB01hzx3k2m4n5p6q7r8s9t0vwxy"} {
		if _, ok := IDTime(bad); ok {
			t.Errorf("IDTime(%q) accepted", bad)
		}
	}
}
