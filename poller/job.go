package poller

import (
	"context"
	_ "embed"
	"fmt"
	"sort"

	"github.com/echomq/emqtop/echomq"
	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
	"github.com/valkey-io/valkey-go"
)

//go:embed job.lua
var jobLua string

var jobScript = valkey.NewLuaScriptReadOnly(jobLua)

// PreviewBytes is the most of a payload the detail view reads.
const PreviewBytes = 64 << 10

// The other fields of a job row the detail reads: at most MaxFields of
// them, each name and value cut to FieldBytes in the server.
const (
	MaxFields  = 64
	FieldBytes = 512
)

// ReadJob reads one job row for the detail view, read-only, with the
// payload cut to preview bytes on the server, the job's place in its
// queue's sets, and the row's other fields (bounded).
func ReadJob(ctx context.Context, c valkey.Client, queue, id string, preview int) (model.JobDetail, error) {
	d := model.JobDetail{Queue: queue, ID: id, PendingRank: -1}
	key, err := keyspace.JobKey(queue, id)
	if err != nil {
		return d, err
	}
	k, err := keyspace.KeysOf(queue)
	if err != nil {
		return d, err
	}
	d.Key = key
	if preview <= 0 {
		preview = PreviewBytes
	}
	arr, err := jobScript.Exec(ctx, c, []string{key, k.Pending, k.Active},
		[]string{fmt.Sprint(preview), id, fmt.Sprint(MaxFields), fmt.Sprint(FieldBytes)}).ToArray()
	if err != nil {
		return d, fmt.Errorf("read %s: %w", key, err)
	}
	if len(arr) != 10 {
		return d, fmt.Errorf("read %s: unexpected reply", key)
	}
	if err := placeJob(&d, arr[5:8]); err != nil {
		return d, fmt.Errorf("read %s: %w", key, err)
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
	d.Payload, _ = arr[4].ToString()
	others, _ := arr[8].AsInt64()
	d.Others = int(others)
	d.Fields, err = jobFields(arr[9])
	if err != nil {
		return d, fmt.Errorf("read %s: %w", key, err)
	}
	return d, nil
}

// placeJob reads the rank in pending and the two scores (nil when the job
// is not in the set; a score is a float on the wire).
func placeJob(d *model.JobDetail, a []valkey.ValkeyMessage) error {
	if r, err := a[0].AsInt64(); err == nil {
		d.PendingRank = r
	}
	score := func(m valkey.ValkeyMessage) (int64, int8, bool, error) {
		if m.IsNil() {
			return 0, 0, false, nil
		}
		f, err := m.AsFloat64()
		if err != nil {
			return 0, 0, false, fmt.Errorf("a score that is not a number: %w", err)
		}
		ms, off := model.ScoreFrom(f)
		return ms, off, true, nil
	}
	var err error
	if d.PendingScore, _, d.InPending, err = score(a[1]); err != nil {
		return err
	}
	d.ActiveScore, d.ActiveOff, d.InActive, err = score(a[2])
	return err
}

// jobFields decodes the flat name, name length, value length, value list.
func jobFields(m valkey.ValkeyMessage) ([]model.Field, error) {
	a, err := m.ToArray()
	if err != nil || len(a)%4 != 0 {
		return nil, fmt.Errorf("unexpected field list")
	}
	out := make([]model.Field, 0, len(a)/4)
	for i := 0; i < len(a); i += 4 {
		var f model.Field
		f.Name, _ = a[i].ToString()
		nl, _ := a[i+1].AsInt64()
		vl, _ := a[i+2].AsInt64()
		f.Value, _ = a[i+3].ToString()
		f.NameLen, f.ValueLen = int(nl), int(vl)
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
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
	var n int64
	err = echomq.TryAgain(ctx, func() (err error) { // several keys: refused while the slot is half moved
		n, err = c.Do(ctx, c.B().Exists().Key(k.Pending, k.Active, k.Schedule, k.Meta).Build()).AsInt64()
		return err
	})
	return n > 0, err
}
