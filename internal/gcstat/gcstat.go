// Package gcstat reads what the garbage collector has cost the process,
// for the benchmarks that report it.
package gcstat

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// CPU is the CPU the collector has spent so far, as of its last cycle.
func CPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// Collection runs one whole collection and is its CPU: what marking the
// live heap costs, on every core.
func Collection() time.Duration {
	before := CPU()
	runtime.GC()
	return CPU() - before
}
