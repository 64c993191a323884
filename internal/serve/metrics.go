package serve

import (
	"net/http"
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
}

func newCollector(h *Hub, sessions func() int) *collector {
	return &collector{h: h, sessions: sessions,
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
	for _, d := range []*prometheus.Desc{c.jobs, c.oldest, c.expired, c.up, c.age, c.ssh, c.readErr, c.dupes, c.srvKeys, c.srvCPU, c.srvNet} {
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
	for i := range snap.Queues.Len() {
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
func MetricsHandler(h *Hub, sessions func() int) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(h, sessions))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
