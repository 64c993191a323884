package echomq

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/echomq/emqtop/internal/vtest"
)

// BenchmarkClaimAck measures claim+ack pairs on a 3-primary cluster with one
// and eight workers; jobs/s is reported as a metric.
func BenchmarkClaimAck(b *testing.B) {
	_, c := vtest.Cluster(b, 3)
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			queues := make([]string, workers)
			for i := range queues {
				queues[i] = fmt.Sprintf("bench-%d-%d", workers, i)
			}
			per := b.N/workers + 1
			for _, q := range queues {
				for i := 0; i < per; i++ {
					if _, err := Enqueue(ctx, c, q, []byte("p")); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for _, q := range queues {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < per; i++ {
						j, ok, err := Claim(ctx, c, q, time.Minute)
						if err != nil || !ok {
							b.Error(err, ok)
							return
						}
						if err := Ack(ctx, c, q, j.ID, j.Attempts); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*workers)/time.Since(start).Seconds(), "jobs/s")
		})
	}
}
