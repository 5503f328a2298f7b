package resp

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"swiftpaxos/client"
)

// metricSet counts the front-end's commands and their latency per command
// and level (/metrics). The series are resolved once, at start, so that
// a command costs two atomic updates, not a label lookup.
type metricSet struct {
	count [][2]prometheus.Counter  // [spec index][level]
	lat   [][2]prometheus.Observer // [spec index][level]
	errs  [][2]prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, conns func() float64) *metricSet {
	if reg == nil {
		return nil
	}
	count := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "swiftpaxos_resp_commands_total",
		Help: "RESP commands answered, by command and connection level."}, []string{"command", "level"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "swiftpaxos_resp_command_errors_total",
		Help: "RESP commands answered with an error reply, by command and connection level."}, []string{"command", "level"})
	lat := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "swiftpaxos_resp_command_seconds",
		Help:    "Time from reading a RESP command to its reply being ready, by command and connection level.",
		Buckets: prometheus.ExponentialBuckets(50e-6, 2, 17)}, []string{"command", "level"})
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "swiftpaxos_resp_connections",
		Help: "RESP connections open."}, conns)
	reg.MustRegister(count, errs, lat, open)
	m := &metricSet{}
	for _, s := range append(specs[:len(specs):len(specs)], unknownSpec) {
		var c, e [2]prometheus.Counter
		var l [2]prometheus.Observer
		for i, level := range []string{"strong", "weak"} {
			c[i] = count.WithLabelValues(s.name, level)
			e[i] = errs.WithLabelValues(s.name, level)
			l[i] = lat.WithLabelValues(s.name, level)
		}
		m.count, m.errs, m.lat = append(m.count, c), append(m.errs, e), append(m.lat, l)
	}
	return m
}

// observe counts a job whose reply is written.
func (m *metricSet) observe(j *job) {
	if m == nil || j.spec == nil {
		return
	}
	l := 0
	if j.level == client.Weak {
		l = 1
	}
	i := j.spec.index
	m.count[i][l].Inc()
	if j.failed {
		m.errs[i][l].Inc()
	}
	m.lat[i][l].Observe(time.Since(j.start).Seconds())
}
