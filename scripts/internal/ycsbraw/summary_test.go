package ycsbraw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteSummary(t *testing.T) {
	// READ: 1..100 µs, one operation a millisecond; UPDATE: one sample
	// of 3000 µs, where a bucket is 2 µs wide (values from 2048 up).
	var b strings.Builder
	b.WriteString(Header + "\n")
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "READ,%d,%d\n", 1_000_000+1000*i, i)
	}
	b.WriteString("UPDATE,1002000,3000\n")
	s, err := Read(strings.NewReader(b.String()), "x")
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, s.WriteSummary(&out))
	// The span: from the first start (1.001 s) to the last end (1.1 s +
	// 100 µs), 99.1 ms. Min is the bottom of its bucket, Max and the
	// percentiles the top, Avg the middle (3001 for a bucket 3000-3001),
	// as go-ycsb reports them.
	assert.Equal(t,
		"READ   - Takes(s): 0.1, Count: 100, OPS: 1009.1, Avg(us): 50, Min(us): 1, Max(us): 100, "+
			"50th(us): 50, 90th(us): 90, 95th(us): 95, 99th(us): 99, 99.9th(us): 100, 99.99th(us): 100\n"+
			"UPDATE - Takes(s): 0.1, Count: 1, OPS: 10.1, Avg(us): 3001, Min(us): 3000, Max(us): 3001, "+
			"50th(us): 3001, 90th(us): 3001, 95th(us): 3001, 99th(us): 3001, 99.9th(us): 3001, 99.99th(us): 3001\n",
		out.String())
}

func TestWriteSummaryTooLong(t *testing.T) {
	s := &Samples{Ops: []string{"READ"}, LatencyUs: map[string][]int64{"READ": {highestUs * 2}}}
	assert.ErrorContains(t, s.WriteSummary(&strings.Builder{}), "READ latency")
}
