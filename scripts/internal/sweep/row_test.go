package sweep

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
)

const sample = `param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,weak_p50_ms,weak_p99_ms,fast_path,slow_path,errors,ok
batchDelayUs,0,1,curpht,40000.0,1.400,5.000,0.900,4.600,750,250,0,true
batchDelayUs,50,1,curpht,42000.5,1.300,4.000,,,100,0,0,true
batchDelayUs,0,2,curpht,,,,,,,,,false
`

func TestReadCSV(t *testing.T) {
	rows, err := ReadCSV("s.csv", strings.NewReader(sample))
	require.NoError(t, err)
	require.Len(t, rows, 3)

	r := rows[0]
	assert.Equal(t, Row{Param: "batchDelayUs", Value: "0", Iteration: 1, Protocol: "curpht", Measured: true,
		Throughput: 40000, StrongP50: 1.4, StrongP99: 5, WeakP50: 0.9, WeakP99: 4.6,
		FastPath: 750, SlowPath: 250, OK: true}, r)
	assert.InDelta(t, 0.75, r.FastShare(), 1e-12)

	assert.True(t, math.IsNaN(rows[1].WeakP50), "an empty latency cell is NaN")
	assert.True(t, rows[1].Measured)

	assert.False(t, rows[2].Measured, "a run without summary")
	assert.False(t, rows[2].OK)
	assert.True(t, math.IsNaN(rows[2].FastShare()))
}

func TestRecordRoundTrip(t *testing.T) {
	rows, err := ReadCSV("s.csv", strings.NewReader(sample))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(strings.Join(Header, ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r.Record(), ",") + "\n")
	}
	assert.Equal(t, sample, b.String())
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "s.csv: empty file"},
		{"header", "a,b\n", "s.csv:1: header is a,b"},
		{"columns", strings.Join(Header, ",") + "\nx,1,1\n", "s.csv:2: 3 columns, want 13"},
		{"iteration", strings.Join(Header, ",") + "\nk,1,0,p,,,,,,,,,false\n", `s.csv:2: iteration "0"`},
		{"number", strings.Join(Header, ",") + "\nk,1,1,p,fast,1,1,1,1,1,1,0,true\n", `s.csv:2: throughput_ops: "fast" is not a number`},
		{"count", strings.Join(Header, ",") + "\nk,1,1,p,1,1,1,1,1,1.5,1,0,true\n", `s.csv:2: fast_path "1.5" is not an integer`},
		{"ok", strings.Join(Header, ",") + "\nk,1,1,p,,,,,,,,,yes\n", `s.csv:2: ok "yes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV("s.csv", strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestAppendCSVFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.csv")
	a := Row{Param: "pendings", Value: "1", Iteration: 1, Protocol: "curpho"}
	b := Row{Param: "pendings", Value: "a,b", Iteration: 2, Protocol: "curpho", Measured: true, Throughput: 5, OK: true,
		StrongP50: math.NaN(), StrongP99: math.NaN(), WeakP50: 1, WeakP99: 2}
	require.NoError(t, AppendCSVFile(path, a))
	require.NoError(t, AppendCSVFile(path, b))
	rows, err := ReadCSVFile(path)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, a, rows[0])
	assert.Equal(t, "a,b", rows[1].Value, "a value with a comma is quoted")
	assert.True(t, math.IsNaN(rows[1].StrongP50))

	other := filepath.Join(t.TempDir(), "other.csv")
	require.NoError(t, os.WriteFile(other, []byte("x,y\n1,2\n"), 0o644))
	err = AppendCSVFile(other, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a sweep.csv")
}

func TestMeasure(t *testing.T) {
	fast, slow := int64(30), int64(10)
	s := &client.RunSummary{Protocol: "curpht", ThroughputOps: 1234.5, Errors: 2, Timeouts: 1,
		Strong: client.ClassJSON{Ops: 40, P50Ms: 1.5, P99Ms: 3, FastPath: &fast, SlowPath: &slow},
		Weak:   client.ClassJSON{Ops: 0, P50Ms: 0, P99Ms: 0}}
	r := Row{Param: "k", Value: "v", Iteration: 1}
	r.Measure(s)
	assert.Equal(t, "curpht", r.Protocol)
	assert.Equal(t, 1234.5, r.Throughput)
	assert.Equal(t, 1.5, r.StrongP50)
	assert.Equal(t, 3.0, r.StrongP99)
	assert.True(t, math.IsNaN(r.WeakP50), "no weak operations: no weak latency, not 0 ms")
	assert.True(t, math.IsNaN(r.WeakP99))
	assert.Equal(t, int64(30), r.FastPath)
	assert.Equal(t, int64(10), r.SlowPath)
	assert.Equal(t, int64(3), r.Errors, "errors and timeouts")
	assert.False(t, r.OK, "Measure leaves OK to the caller")
}
