package serve

import (
	"container/heap"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/echomq/emqtop/internal/textgate"
	"github.com/echomq/emqtop/model"
)

// collector serves the hub's last snapshot as Prometheus metrics: a scrape
// reads what the poller already read, never the cluster. Labels are the
// queue and the node, never a job or a slot (their number is unbounded).
// Label values from servers pass the text gate like any output.
type collector struct {
	mu       sync.Mutex // scrapes may overlap
	h        *Hub
	sessions func() int
	pollDur  prometheus.Histogram
	errs     prometheus.Counter
	lastErrs int

	jobs, oldest, expired, up, age, ssh, readErr, dupes *prometheus.Desc
	srvKeys, srvCPU, srvNet                             *prometheus.Desc
	queues, exported                                    *prometheus.Desc
	maxQueues                                           int // the most queues with series of their own
}

// DefaultMetricsQueues is how many queues have series of their own by
// default (serve --metrics-queues): five series a queue, 50,000 at most,
// which a Prometheus scrapes at ease. A scrape of a million queues wrote
// 223 MB of text in 17 s, allocating 3.3 GB on the way, and the process's
// heap grew to 2.9 GB (BenchmarkScrape).
const DefaultMetricsQueues = 10_000

func newCollector(h *Hub, sessions func() int, maxQueues int) *collector {
	return &collector{h: h, sessions: sessions, maxQueues: maxQueues,
		queues: prometheus.NewDesc("emqtop_queues", "Queues in the snapshot, each with series of its own or not.", nil, nil),
		exported: prometheus.NewDesc("emqtop_queues_exported",
			"Queues with series of their own: all of them, or, past serve --metrics-queues, those that failed, then those with the most expired jobs, then pending.",
			nil, nil),
		pollDur: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "emqtop_poll_duration_seconds",
			Help: "How long each poll of the cluster took.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 12)}),
		errs: prometheus.NewCounter(prometheus.CounterOpts{Name: "emqtop_poll_errors_total",
			Help: "Polls that failed as a whole (no node could be read)."}),
		jobs: prometheus.NewDesc("emqtop_queue_jobs", "Jobs of a queue by state: pending, active, scheduled.",
			[]string{"queue", "state"}, nil),
		oldest: prometheus.NewDesc("emqtop_queue_oldest_pending_age_seconds",
			"How long the oldest pending job of a queue has waited (absent when none is pending).", []string{"queue"}, nil),
		expired: prometheus.NewDesc("emqtop_queue_expired_jobs",
			"Active jobs of a queue whose lease ran out (stuck).", []string{"queue"}, nil),
		up: prometheus.NewDesc("emqtop_node_up", "1 when the primary answered the last poll.", []string{"node"}, nil),
		age: prometheus.NewDesc("emqtop_snapshot_age_seconds",
			"How old the snapshot the metrics come from is.", nil, nil),
		ssh: prometheus.NewDesc("emqtop_ssh_sessions", "Dashboards served over SSH now.", nil, nil),
		readErr: prometheus.NewDesc("emqtop_queue_read_error",
			"1 for a queue the last poll could not read (a key of the wrong type, a refused script): it has no count series, not zeros.",
			[]string{"queue"}, nil),
		srvKeys: prometheus.NewDesc("emqtop_node_keys",
			"Keys in the primary's slots, every key (CLUSTER SLOT-STATS; absent where the server has no such command).", []string{"node"}, nil),
		srvCPU: prometheus.NewDesc("emqtop_node_slot_cpu_seconds_per_second",
			"Server CPU time a second spent on the primary's slots (CLUSTER SLOT-STATS with cluster-slot-stats-enabled).", []string{"node"}, nil),
		srvNet: prometheus.NewDesc("emqtop_node_slot_network_bytes_per_second",
			"Network bytes in and out a second for the primary's slots (CLUSTER SLOT-STATS with cluster-slot-stats-enabled).", []string{"node"}, nil),
		dupes: prometheus.NewDesc("emqtop_label_collisions",
			"Series left out because their label value, once through the text gate, was another's (never expected: the gate is injective).",
			nil, nil),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	c.pollDur.Describe(ch)
	c.errs.Describe(ch)
	for _, d := range []*prometheus.Desc{c.jobs, c.oldest, c.expired, c.up, c.age, c.ssh, c.readErr, c.dupes, c.srvKeys, c.srvCPU, c.srvNet, c.queues, c.exported} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, _ := c.h.TakeStats()
	for _, d := range st.Durations {
		c.pollDur.Observe(d.Seconds())
	}
	if n := st.Errors - c.lastErrs; n > 0 {
		c.errs.Add(float64(n))
		c.lastErrs = st.Errors
	}
	c.pollDur.Collect(ch)
	c.errs.Collect(ch)
	ch <- prometheus.MustNewConstMetric(c.ssh, prometheus.GaugeValue, float64(c.sessions()))
	snap, _, _ := c.h.Latest()
	if snap == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, time.Since(snap.TakenAt).Seconds())
	// A label value is emitted once: two that collide would fail the whole
	// scrape ("collected before with the same name and label values"), so a
	// collision costs its own series, never the endpoint.
	seen, dupes := map[string]bool{}, 0
	once := func(kind, v string) bool {
		if seen[kind+"\x00"+v] {
			dupes++
			return false
		}
		seen[kind+"\x00"+v] = true
		return true
	}
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		if n.Role != model.RolePrimary || !once("node", textgate.Text(n.Addr)) {
			continue
		}
		v := 0.0
		if n.Up() {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, v, textgate.Text(n.Addr))
		if snap.Load == nil {
			continue
		}
		if st, ok := snap.Load.Nodes[n.Addr]; ok && (st.Mode == model.SlotStatsFull || st.Mode == model.SlotStatsKeys) {
			ch <- prometheus.MustNewConstMetric(c.srvKeys, prometheus.GaugeValue, float64(st.Keys), textgate.Text(n.Addr))
			if st.Mode == model.SlotStatsFull && st.RatesOver > 0 {
				ch <- prometheus.MustNewConstMetric(c.srvCPU, prometheus.GaugeValue, st.CPU/1e6, textgate.Text(n.Addr))
				ch <- prometheus.MustNewConstMetric(c.srvNet, prometheus.GaugeValue, st.Net, textgate.Text(n.Addr))
			}
		}
	}
	picked := exported(snap.Queues, c.maxQueues)
	ch <- prometheus.MustNewConstMetric(c.queues, prometheus.GaugeValue, float64(snap.Queues.Len()))
	ch <- prometheus.MustNewConstMetric(c.exported, prometheus.GaugeValue, float64(len(picked)))
	for _, i := range picked {
		q := snap.Queues.At(i)
		name := textgate.Text(q.Name)
		if !once("queue", name) {
			continue
		}
		if q.Err != "" || q.Unread {
			// its counts are not figures: an error series, no zeros
			ch <- prometheus.MustNewConstMetric(c.readErr, prometheus.GaugeValue, 1, name)
			continue
		}
		for state, v := range map[string]int64{"pending": q.Pending, "active": q.Active, "scheduled": q.Scheduled} {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(v), name, state)
		}
		ch <- prometheus.MustNewConstMetric(c.expired, prometheus.GaugeValue, float64(q.Expired), name)
		if age := snap.OldestAge(q); age >= 0 {
			ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, float64(age)/1000, name)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.dupes, prometheus.GaugeValue, float64(dupes))
}

// MetricsHandler serves the hub's metrics in the Prometheus text format.
// Past maxQueues queues (a negative max: none), those that matter most
// have series of their own (see exported), and every scrape says how many
// queues there are and how many have.
func MetricsHandler(h *Hub, sessions func() int, maxQueues int) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(h, sessions, maxQueues))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// exported is the places of the queues of l with series of their own, in
// l's order: every queue when l holds at most max; else the max that
// matter most, those that failed first, then by expired jobs, then by
// pending, the earlier in l on a tie (a heap of max places: a scrape of a
// million queues looks at each once).
func exported(l model.QueueList, max int) []int {
	if max < 0 {
		max = 0
	}
	if l.Len() <= max {
		out := make([]int, l.Len())
		for i := range out {
			out[i] = i
		}
		return out
	}
	h := &rankHeap{l: l}
	for i := range l.Len() {
		switch {
		case len(h.at) < max:
			heap.Push(h, i)
		case max > 0 && h.before(i, h.at[0]):
			h.at[0] = i
			heap.Fix(h, 0)
		}
	}
	out := h.at
	slices.Sort(out)
	return out
}

// rankHeap holds the places picked so far, the one that matters least on
// top.
type rankHeap struct {
	l  model.QueueList
	at []int
}

// before reports whether the queue at place i matters more than the one
// at j.
func (h *rankHeap) before(i, j int) bool {
	a, b := h.l.At(i), h.l.At(j)
	fa, fb := a.Err != "" || a.Unread, b.Err != "" || b.Unread
	switch {
	case fa != fb:
		return fa
	case a.Expired != b.Expired:
		return a.Expired > b.Expired
	case a.Pending != b.Pending:
		return a.Pending > b.Pending
	}
	return i < j
}

func (h *rankHeap) Len() int           { return len(h.at) }
func (h *rankHeap) Less(x, y int) bool { return h.before(h.at[y], h.at[x]) }
func (h *rankHeap) Swap(x, y int)      { h.at[x], h.at[y] = h.at[y], h.at[x] }
func (h *rankHeap) Push(v any)         { h.at = append(h.at, v.(int)) }
func (h *rankHeap) Pop() any {
	v := h.at[len(h.at)-1]
	h.at = h.at[:len(h.at)-1]
	return v
}
