package commands

import (
	"strings"
	"testing"
)

// --metrics-queues below 0 stops the start with a usage error that names
// the flag, before anything connects (the address refuses connections).
func TestServeMetricsQueuesRefused(t *testing.T) {
	var out, errOut strings.Builder
	code := runServe([]string{"--metrics", "127.0.0.1:0", "--metrics-queues", "-1", "--addr", "127.0.0.1:1"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "--metrics-queues -1") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
