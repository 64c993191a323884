package vtest

import (
	"context"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/echomq/emqtop/keyspace"
	"github.com/valkey-io/valkey-go"
)

// Seeder writes job fixtures straight into a cluster, pipelined, for the
// benchmarks that need many queues fast (tests write through echomq).
type Seeder struct {
	tb   testing.TB
	c    valkey.Client
	cmds valkey.Commands
}

// NewSeeder writes through c; call Flush when done.
func NewSeeder(tb testing.TB, c valkey.Client) *Seeder { return &Seeder{tb: tb, c: c} }

// Job writes a job row (attempts 1) and puts its id in the queue's set of
// type typ (keyspace.TypePending or keyspace.TypeActive) at score.
func (s *Seeder) Job(queue, typ string, score float64) {
	cmds, err := JobCommands(s.c, queue, typ, score)
	if err != nil {
		s.tb.Fatal(err)
	}
	s.cmds = append(s.cmds, cmds...)
	if len(s.cmds) >= 20000 {
		s.Flush()
	}
}

// JobCommands are the commands that write a new job of queue, as Job does.
func JobCommands(c valkey.Client, queue, typ string, score float64) (valkey.Commands, error) {
	id := keyspace.JobIDPrefix + ulid.Make().String() // as echomq.NewJobID mints them
	row, err := keyspace.JobKey(queue, id)
	if err != nil {
		return nil, err
	}
	set, err := keyspace.QueueKey(queue, typ)
	if err != nil {
		return nil, err
	}
	return valkey.Commands{
		c.B().Hset().Key(row).FieldValue().FieldValue("payload", "{}").FieldValue("attempts", "1").Build(),
		c.B().Zadd().Key(set).ScoreMember().ScoreMember(score, id).Build()}, nil
}

// Flush sends what is buffered.
func (s *Seeder) Flush() {
	for _, r := range s.c.DoMulti(context.Background(), s.cmds...) {
		if err := r.Error(); err != nil {
			s.tb.Fatal(err)
		}
	}
	s.cmds = s.cmds[:0]
}
