package resp

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
)

// A command's reply counts it under its name and level, an error reply
// counts it as an error too, its latency goes into the histogram, and
// the open connections are a gauge.
func TestMetricsCountCommandsByLevel(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := newMetrics(reg, func() float64 { return 7 })
	get, set := table["GET"], table["SET"]
	m.observe(&job{spec: get, level: client.Strong, start: time.Now()})
	m.observe(&job{spec: get, level: client.Weak, start: time.Now()})
	m.observe(&job{spec: get, level: client.Weak, start: time.Now()})
	m.observe(&job{spec: set, level: client.Strong, start: time.Now(), failed: true})
	m.observe(&job{spec: unknownSpec, level: client.Strong, start: time.Now(), failed: true})

	got := map[string]float64{} // name{command,level} -> value; histograms: their count
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		for _, s := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range s.GetLabel() {
				key += " " + l.GetValue()
			}
			switch {
			case s.GetCounter() != nil:
				got[key] = s.GetCounter().GetValue()
			case s.GetHistogram() != nil:
				got[key] = float64(s.GetHistogram().GetSampleCount())
			case s.GetGauge() != nil:
				got[key] = s.GetGauge().GetValue()
			}
		}
	}
	assert.Equal(t, 1.0, got["swiftpaxos_resp_commands_total GET strong"])
	assert.Equal(t, 2.0, got["swiftpaxos_resp_commands_total GET weak"])
	assert.Equal(t, 0.0, got["swiftpaxos_resp_command_errors_total GET weak"])
	assert.Equal(t, 1.0, got["swiftpaxos_resp_command_errors_total SET strong"])
	assert.Equal(t, 1.0, got["swiftpaxos_resp_command_errors_total UNKNOWN strong"])
	assert.Equal(t, 2.0, got["swiftpaxos_resp_command_seconds GET weak"])
	assert.Equal(t, 7.0, got["swiftpaxos_resp_connections"])
	_, made := got["swiftpaxos_resp_commands_total INCR weak"]
	assert.True(t, made, "every command's series exists from the start")
}
