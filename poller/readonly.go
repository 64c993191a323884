package poller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/valkey-io/valkey-go"
)

// ErrReadOnly is the refusal of a write by a read-only client.
var ErrReadOnly = errors.New("read-only: emqtop was started with --read-only, so no write command is sent")

// readCommands are the commands a read-only session may send: what the
// poller, the job view and the handshake need, nothing that writes data.
var readCommands = map[string]bool{
	"TIME": true, "INFO": true, "SCAN": true, "GET": true, "TYPE": true, "EXISTS": true,
	"ZCARD": true, "ZRANGE": true, "ZCOUNT": true, "ZSCORE": true, "HGET": true, "HMGET": true,
	"HGETALL": true, "HSTRLEN": true, "EVAL_RO": true, "EVALSHA_RO": true, "ROLE": true, "PING": true,
	"READONLY": true, "ASKING": true, "DBSIZE": true,
	"CLUSTER SHARDS": true, "CLUSTER SLOTS": true, "CLUSTER NODES": true, "CLUSTER INFO": true,
	"CLUSTER MYID": true, "CLUSTER KEYSLOT": true, "CLUSTER SLOT-STATS": true,
	// loading a script changes no data; the read-only snapshot needs it
	"SCRIPT LOAD": true,
	// what change-driven polling asks of its own connection: no data
	"CLIENT ID": true, "CLIENT TRACKING": true,
}

func allowed(cmd valkey.Completed) bool {
	c := cmd.Commands()
	if len(c) == 0 {
		return false
	}
	name := strings.ToUpper(c[0])
	if len(c) > 1 && (name == "CLUSTER" || name == "SCRIPT" || name == "CLIENT") {
		name += " " + strings.ToUpper(c[1])
	}
	return readCommands[name]
}

// roClient refuses, before sending, every command not in readCommands.
type roClient struct{ valkey.Client }

// ReadOnly wraps c so that no write command can be sent through it, nor
// through the per-node clients it hands out.
func ReadOnly(c valkey.Client) valkey.Client { return roClient{c} }

func refuse(cmd valkey.Completed) error {
	return fmt.Errorf("%w (refused %s)", ErrReadOnly, strings.Join(cmd.Commands()[:1], " "))
}

func (r roClient) Do(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResult {
	if !allowed(cmd) {
		return valkey.NewErrorResult(refuse(cmd))
	}
	return r.Client.Do(ctx, cmd)
}

func (r roClient) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	return r.guardMulti(cmds, func() []valkey.ValkeyResult { return r.Client.DoMulti(ctx, cmds...) })
}

// guardMulti refuses the whole pipeline when any command of it writes.
func (roClient) guardMulti(cmds []valkey.Completed, send func() []valkey.ValkeyResult) []valkey.ValkeyResult {
	for _, c := range cmds {
		if !allowed(c) {
			out := make([]valkey.ValkeyResult, len(cmds))
			for i := range out {
				out[i] = valkey.NewErrorResult(refuse(c))
			}
			return out
		}
	}
	return send()
}

func (r roClient) DoStream(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResultStream {
	if !allowed(cmd) {
		return valkey.NewErrorResultStream(refuse(cmd))
	}
	return r.Client.DoStream(ctx, cmd)
}

func (r roClient) DoMultiStream(ctx context.Context, cmds ...valkey.Completed) valkey.MultiValkeyResultStream {
	for _, c := range cmds {
		if !allowed(c) {
			return valkey.NewErrorResultStream(refuse(c))
		}
	}
	return r.Client.DoMultiStream(ctx, cmds...)
}

func (r roClient) Dedicated(fn func(valkey.DedicatedClient) error) error {
	return fmt.Errorf("%w (no dedicated connections)", ErrReadOnly)
}

func (r roClient) Dedicate() (valkey.DedicatedClient, func()) {
	d, cancel := r.Client.Dedicate()
	return roDedicated{d}, cancel
}

// roDedicated guards a dedicated connection the same way.
type roDedicated struct{ valkey.DedicatedClient }

func (r roDedicated) Do(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResult {
	if !allowed(cmd) {
		return valkey.NewErrorResult(refuse(cmd))
	}
	return r.DedicatedClient.Do(ctx, cmd)
}

func (r roDedicated) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	return roClient{}.guardMulti(cmds, func() []valkey.ValkeyResult { return r.DedicatedClient.DoMulti(ctx, cmds...) })
}

func (r roClient) Nodes() map[string]valkey.Client {
	n := r.Client.Nodes()
	for k, c := range n {
		n[k] = roClient{c}
	}
	return n
}
