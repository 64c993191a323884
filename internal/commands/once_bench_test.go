package commands

import (
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
	"github.com/echomq/emqtop/keyspace"
)

// BenchmarkOnce times the whole `emqtop --once --json` (connect, topology,
// a discovery pass, one snapshot, the JSON) on 3 primaries with 10,000
// queues, without and with --jobs:
//
//	go test ./internal/commands -run x -bench Once -benchtime 10x
func BenchmarkOnce(b *testing.B) {
	cl, c := vtest.Cluster(b, 3)
	sd := vtest.NewSeeder(b, c)
	now := float64(time.Now().UnixMilli())
	for i := 0; i < 10_000; i++ {
		q := fmt.Sprintf("q-%05d", i)
		for j := 0; j < 3; j++ {
			sd.Job(q, keyspace.TypePending, now-float64(j))
		}
		sd.Job(q, keyspace.TypeActive, now-1000)
	}
	sd.Flush()
	for _, jobs := range []string{"0", "20"} {
		b.Run("jobs="+jobs, func(b *testing.B) {
			for b.Loop() {
				if rc := Main([]string{"--once", "--json", "--jobs", jobs, "--addr", cl.Nodes[0].Addr()}, io.Discard, io.Discard); rc != 0 {
					b.Fatalf("rc %d", rc)
				}
			}
		})
	}
}
