package poller

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

//go:embed job.lua
var jobLua string

var jobScript = valkey.NewLuaScriptReadOnly(jobLua)

// PreviewBytes is the most of a payload the detail view reads.
const PreviewBytes = 64 << 10

// ReadJob reads one job row for the detail view, read-only, with the
// payload cut to preview bytes on the server.
func ReadJob(ctx context.Context, c valkey.Client, queue, id string, preview int) (model.JobDetail, error) {
	d := model.JobDetail{Queue: queue, ID: id}
	key, err := keyspace.JobKey(queue, id)
	if err != nil {
		return d, err
	}
	d.Key = key
	if preview <= 0 {
		preview = PreviewBytes
	}
	arr, err := jobScript.Exec(ctx, c, []string{key}, []string{fmt.Sprint(preview)}).ToArray()
	if err != nil {
		return d, fmt.Errorf("read %s: %w", key, err)
	}
	if len(arr) != 5 {
		return d, fmt.Errorf("read %s: unexpected reply", key)
	}
	typ, _ := arr[0].ToString()
	switch typ {
	case "none":
		return d, nil
	case "hash":
	default:
		return d, fmt.Errorf("%s is a %s, not a hash", key, typ)
	}
	d.Exists = true
	d.State, _ = arr[1].ToString()
	d.Attempts, _ = arr[2].ToString()
	n, _ := arr[3].AsInt64()
	d.PayloadLen = int(n)
	p, _ := arr[4].ToString()
	d.Payload = p
	return d, nil
}

// NoKeys words a queue that has no keys on the server: no queue of that
// name, or one that is empty now.
func NoKeys(queue, target string) string {
	return fmt.Sprintf("no queue named %s on %s (it has no keys)", keyspace.Quote(queue), target)
}

// QueueExists reports whether any key of the queue exists: its pending,
// active and schedule sets and its meta hash share one slot, so this is
// one EXISTS.
func QueueExists(ctx context.Context, c valkey.Client, queue string) (bool, error) {
	k, err := keyspace.KeysOf(queue)
	if err != nil {
		return false, err
	}
	n, err := c.Do(ctx, c.B().Exists().Key(k.Pending, k.Active, k.Schedule, k.Meta).Build()).AsInt64()
	return n > 0, err
}
