package poller

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/valkey-io/valkey-go"

	"github.com/echomq/emqtop/keyspace"
	"github.com/echomq/emqtop/model"
)

// FindCount is the COUNT of one find SCAN page: the work a step asks of a
// server, a few milliseconds at most, so a find never holds a node.
const FindCount = 1000

// Find is the search for a job's row by its id over every primary: a SCAN
// for emq:{*}:job:<id>, one page per primary per step, until a row is
// found or every primary's keyspace was walked. It holds no connection;
// the caller paces the steps and may drop it at any time.
type Find struct {
	p       *Poller
	ID      string
	pattern string
	nodes   []string          // the primaries' addresses
	cursor  map[string]string // "" not started, "0" walked
	keys    map[string]int64  // DBSIZE when the find started
	Walked  int64             // keys the pages covered (COUNT per page, at most the node's size)
	Total   int64             // keys on the primaries when it started
	Queue   string            // the queue whose row matched, once found
	Errs    map[string]string // a primary that failed: it is not searched
}

// Done reports whether the find is over: found, or every primary walked or
// failed.
func (f *Find) Done() bool {
	if f.Queue != "" {
		return true
	}
	for _, a := range f.nodes {
		if f.cursor[a] != "0" && f.Errs[a] == "" {
			return false
		}
	}
	return true
}

// Nodes is how many primaries the find searches.
func (f *Find) Nodes() int { return len(f.nodes) }

// StartFind begins a find for id on the primaries of the last topology.
// An id that is not a job id is refused here, before any server is asked.
func (p *Poller) StartFind(ctx context.Context, id string) (model.FindSearch, error) {
	pattern, err := keyspace.JobPattern(id)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	topo := p.topo
	p.mu.Unlock()
	if topo == nil {
		return nil, fmt.Errorf("no topology yet: wait for the first poll")
	}
	f := &Find{p: p, ID: id, pattern: pattern, cursor: map[string]string{}, keys: map[string]int64{},
		Errs: map[string]string{}}
	clients := p.c.Nodes()
	for _, n := range topo.Nodes {
		if n.Role != model.RolePrimary {
			continue
		}
		f.nodes = append(f.nodes, n.Addr)
		nc, ok := clients[n.Addr]
		if !ok {
			f.Errs[n.Addr] = "no connection to it"
			continue
		}
		size, err := nc.Do(ctx, nc.B().Dbsize().Build()).AsInt64()
		if err != nil {
			f.Errs[n.Addr] = ErrText(err, p.opt.Timeout)
			continue
		}
		f.keys[n.Addr] = size
		f.Total += size
	}
	return f, nil
}

// Step sends each primary still to walk one SCAN page, in parallel, takes
// the answers (a row of the id ends the find) and says how far the find
// has gone.
func (f *Find) Step(ctx context.Context) model.FindProgress {
	f.walk(ctx)
	pr := model.FindProgress{Queue: f.Queue, Walked: f.Walked, Total: f.Total, Nodes: f.Nodes(), Done: f.Done()}
	for addr, e := range f.Errs {
		pr.Failed = append(pr.Failed, addr+": "+e)
	}
	sort.Strings(pr.Failed)
	return pr
}

func (f *Find) walk(ctx context.Context) {
	p := f.p
	clients := p.c.Nodes()
	type answer struct {
		addr, cursor string
		keys         []string
		err          error
	}
	var wg sync.WaitGroup
	answers := make(chan answer, len(f.nodes))
	for _, a := range f.nodes {
		nc, ok := clients[a]
		if f.cursor[a] == "0" || f.Errs[a] != "" {
			continue
		}
		if !ok {
			f.Errs[a] = "no connection to it"
			continue
		}
		cur, _ := strconv.ParseUint(f.cursor[a], 10, 64)
		wg.Add(1)
		go func(a string, nc valkey.Client) {
			defer wg.Done()
			e, err := nc.Do(ctx, nc.B().Scan().Cursor(cur).Match(f.pattern).Count(FindCount).Build()).AsScanEntry()
			answers <- answer{addr: a, cursor: strconv.FormatUint(e.Cursor, 10), keys: e.Elements, err: err}
		}(a, nc)
	}
	wg.Wait()
	close(answers)
	for ans := range answers {
		if ans.err != nil {
			f.Errs[ans.addr] = ErrText(ans.err, p.opt.Timeout)
			continue
		}
		f.cursor[ans.addr] = ans.cursor
		f.Walked += min(FindCount, f.keys[ans.addr])
		for _, k := range ans.keys {
			if parsed, err := keyspace.Parse(k); err == nil && parsed.Type == keyspace.TypeJob && parsed.JobID == f.ID {
				f.Queue = parsed.Queue
			}
		}
	}
	f.Walked = min(f.Walked, f.Total)
}

// Job reads one job row of the queue, read-only, with a bounded preview of
// its payload: the detail view's read.
func (p *Poller) Job(ctx context.Context, queue, id string) (model.JobDetail, error) {
	return ReadJob(ctx, p.c, queue, id, PreviewBytes)
}
