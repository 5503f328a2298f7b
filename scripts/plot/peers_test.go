package main

import (
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/scripts/internal/ycsbraw"
)

// peersHeader is scripts/peers/run.sh's header.
const peersHeader = "round,threads,system,workload,records,operations,seconds,ops_per_s,read_p50_us,read_p99_us,update_p50_us,update_p99_us,insert_p50_us,insert_p99_us,scan_p50_us,scan_p99_us,rmw_p50_us,rmw_p99_us,errors,status,server_cpu_us_per_op,load_avg,counts,server_cmd,ycsb_cmd"

// peersLine is a row of peers.csv as run.sh writes it, quoted command
// lines with commas included.
func peersLine(round, threads int, system, workload string, rate float64, status string) string {
	return fmt.Sprintf(`%d,%d,%s,%s,1000,2000,0.5,%g,80,300,,,,,,,,,0,%s,12.5,1.2,"READ=1000 UPDATE=1000","a -p x=1,2 ; b","go-ycsb run ""q"""`,
		round, threads, system, workload, rate, status)
}

func writePeersCSV(t *testing.T, dir string, lines ...string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "peers.csv"), []byte(strings.Join(append([]string{peersHeader}, lines...), "\n")+"\n"), 0o644))
}

// writeLatency writes a cell's gzipped raw measurement file: n reads
// and n updates, latencies from base µs up.
func writeLatency(t *testing.T, dir string, round, threads int, system, workload string, n int, base int64) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lat"), 0o755))
	f, err := os.Create(latencyPath(dir, peerRow{Round: round, Threads: threads, System: system, Workload: workload}))
	require.NoError(t, err)
	zw := gzip.NewWriter(f)
	fmt.Fprintln(zw, ycsbraw.Header)
	for i := range n {
		fmt.Fprintf(zw, "READ,%d,%d\n", 1_700_000_000_000_000+i, base+int64(i%50))
		fmt.Fprintf(zw, "UPDATE,%d,%d\n", 1_700_000_000_000_000+i, 3*base+int64(i%70))
		fmt.Fprintf(zw, "TOTAL,%d,%d\n", 1_700_000_000_000_000+i, 1)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

func TestReadPeersCSV(t *testing.T) {
	in := strings.Join([]string{peersHeader,
		peersLine(1, 16, "redis", "a", 40000, "ok"),
		peersLine(1, 16, "etcd-tmpfs", "e", 0, "exit 1"),
		peersLine(2, 16, "redis", "a", 42000.5, "ok"),
	}, "\n")
	rows, err := readPeersCSV(strings.NewReader(in), "p.csv")
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, peerRow{Line: 2, Round: 1, Threads: 16, System: "redis", Workload: "a", OpsPerS: 40000, OK: true}, rows[0])
	assert.Equal(t, peerRow{Line: 3, Round: 1, Threads: 16, System: "etcd-tmpfs", Workload: "e"}, rows[1])
	assert.Equal(t, 42000.5, rows[2].OpsPerS)

	// Columns are found by name: another order, fewer columns, more.
	rows, err = readPeersCSV(strings.NewReader("status,extra,ops_per_s,workload,system,threads,round\nok,x,10,b,s,4,1\n"), "p.csv")
	require.NoError(t, err)
	assert.Equal(t, []peerRow{{Line: 2, Round: 1, Threads: 4, System: "s", Workload: "b", OpsPerS: 10, OK: true}}, rows)
}

func TestReadPeersCSVErrors(t *testing.T) {
	ok := peersLine(1, 16, "redis", "a", 40000, "ok")
	for _, c := range []struct{ in, want string }{
		{"", "p.csv: empty"},
		{"round,threads,system\n1,2,x\n", "p.csv: no column workload, ops_per_s, status in the header"},
		{"round,round,threads,system,workload,ops_per_s,status\n", `column "round" twice`},
		{peersHeader + "\n", "p.csv: no cells, only the header"},
		{peersHeader + "\n" + peersLine(1, 16, "redis", "a", 0, "errors"), "p.csv: no cell with status ok"},
		{peersHeader + "\n" + ok + "\n1,16,redis\n", "p.csv: record on line 3: wrong number of fields"},
		{peersHeader + "\n" + strings.Replace(ok, "1,16,", "0,16,", 1), `p.csv:2: round "0"`},
		{peersHeader + "\n" + strings.Replace(ok, "1,16,", "1,x,", 1), `p.csv:2: threads "x"`},
		{peersHeader + "\n" + strings.Replace(ok, ",redis,", ",,", 1), "p.csv:2: no system"},
		{peersHeader + "\n" + strings.Replace(ok, ",redis,a,", ",redis,g,", 1), `p.csv:2: workload "g"`},
		{peersHeader + "\n" + strings.Replace(ok, ",0,ok,", ",0,,", 1), "p.csv:2: no status"},
		{peersHeader + "\n" + strings.Replace(ok, ",40000,", ",,", 1), `p.csv:2: ops_per_s "" of an ok cell`},
		{peersHeader + "\n" + strings.Replace(ok, ",40000,", ",0,", 1), `p.csv:2: ops_per_s "0" of an ok cell`},
		{peersHeader + "\n" + ok + "\n" + peersLine(1, 16, "redis", "a", 0, "errors") + "\n" + ok,
			"p.csv:4: a second ok row of round 1, 16 threads, redis, workload a (the first is line 2)"},
	} {
		_, err := readPeersCSV(strings.NewReader(c.in), "p.csv")
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.want, c.in)
	}
	_, err := loadPeers(t.TempDir())
	assert.ErrorContains(t, err, "an output directory of scripts/peers/run.sh?")
}

func TestPeersCellsAndOrders(t *testing.T) {
	dir := t.TempDir()
	writePeersCSV(t, dir,
		peersLine(1, 64, "sp-curpht", "c", 100, "ok"),
		peersLine(1, 16, "redis", "a", 300, "ok"),
		peersLine(2, 16, "redis", "a", 100, "ok"),
		peersLine(3, 16, "redis", "a", 0, "errors"),
		peersLine(4, 16, "redis", "a", 200, "ok"),
		peersLine(1, 16, "sp-curpht", "a", 10, "ok"),
		peersLine(2, 16, "sp-curpht", "a", 30, "ok"),
		peersLine(1, 16, "etcd-tmpfs", "e", 0, "exit 1"),
	)
	d, err := loadPeers(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"sp-curpht", "redis", "etcd-tmpfs"}, d.Systems, "order of first appearance")
	assert.Equal(t, []int{16, 64}, d.Threads)
	assert.Equal(t, []string{"a", "c", "e"}, d.Workloads)
	assert.Equal(t, 1, d.systemColour("redis"))

	c := d.cell(16, "redis", "a")
	assert.Equal(t, 4, c.Rows)
	assert.Len(t, c.OKRows, 3)
	assert.Equal(t, 3, c.Throughput.N)
	assert.Equal(t, 200.0, c.Throughput.Median, "the failed round is not counted")
	assert.Equal(t, 100.0, c.Throughput.Min)
	assert.Equal(t, 300.0, c.Throughput.Max)
	assert.Equal(t, 20.0, d.cell(16, "sp-curpht", "a").Throughput.Median, "two rounds: their mean")
	c = d.cell(16, "etcd-tmpfs", "e")
	assert.Equal(t, 1, c.Rows)
	assert.Zero(t, c.Throughput.N)
	assert.Zero(t, d.cell(64, "redis", "a").Rows)
}

func TestSampleCDF(t *testing.T) {
	us := []int64{700, 0, 300, 300, 1200, 300, 5000, 700}
	pts := sampleCDF(us)
	assert.Equal(t, []cdfPoint{{0.001, 0}, {0.001, 1.0 / 8}, {0.3, 4.0 / 8}, {0.7, 6.0 / 8}, {1.2, 7.0 / 8}, {5, 1}}, pts)
	sorted := slices.Clone(us)
	slices.Sort(sorted)
	n := int64(len(us))
	for i := range n {
		assert.Equal(t, float64(max(sorted[i], 1))/1000, elementMs(pts, n, i), "element %d", i)
	}
	assert.Equal(t, []int64{700, 0, 300, 300, 1200, 300, 5000, 700}, us, "the samples are not reordered")
}

func TestLog10Ticks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (log10Ticks{}).Ticks(math.Log10(lo), math.Log10(hi)) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10"}, labels(0.03, 12))
	// Fewer than two of 1, 2, 5 in range: every tick labelled.
	assert.Equal(t, []string{"3", "4"}, labels(2.5, 4.5))
}

func TestWritePeersCharts(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for r := 1; r <= 3; r++ {
		for _, th := range []int{16, 64} {
			for j, s := range []string{"sp-curpht", "etcd-tmpfs", "redis"} {
				for _, w := range []string{"a", "b", "e"} {
					if w == "e" && s != "etcd-tmpfs" {
						continue
					}
					status := "ok"
					if s == "sp-curpht" && w == "b" && th == 64 {
						status = "errors"
					}
					lines = append(lines, peersLine(r, th, s, w, float64(1000*(j+1)+100*r), status))
					if w == "a" && !(r == 3 && s == "redis") {
						writeLatency(t, dir, r, th, s, w, 200, int64(100*(j+1)))
					}
				}
			}
		}
	}
	writePeersCSV(t, dir, lines...)
	out := t.TempDir()
	files, notes, err := writePeersCharts(dir, out, "x-")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(out, "x-peers-throughput.png"), filepath.Join(out, "x-peers-cdf-a.png"), filepath.Join(out, "x-peers-tail-a.png")}, files)
	for _, f := range files {
		requirePNG(t, f)
	}
	assert.Equal(t, []string{"workload A: 2 ok cells have no latency file under " + filepath.Join(dir, "lat") + " and are not in its CDF"}, notes)

	l, err := loadPeersLatency(peers{Dir: dir, Rows: []peerRow{{Round: 1, Threads: 16, System: "redis", Workload: "a", OK: true}}}, "a")
	require.NoError(t, err)
	assert.Equal(t, []string{"READ", "UPDATE"}, l.Ops, "TOTAL left out")
	assert.Len(t, l.Samples[16]["redis"]["READ"], 200)

	// A malformed latency file is an error; none at all, a note.
	require.NoError(t, os.WriteFile(latencyPath(dir, peerRow{Round: 1, Threads: 16, System: "redis", Workload: "a"}), []byte("not gzip"), 0o644))
	_, _, err = writePeersCharts(dir, out, "")
	assert.ErrorContains(t, err, "1-16-redis-a.csv.gz")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "lat")))
	files, notes, err = writePeersCharts(dir, out, "")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(out, "peers-throughput.png")}, files)
	assert.Equal(t, []string{"no latency files under " + filepath.Join(dir, "lat") + ": no CDF"}, notes)
}

func TestPlotMainPeers(t *testing.T) {
	dir := t.TempDir()
	writePeersCSV(t, dir, peersLine(1, 16, "redis", "a", 5000, "ok"))
	out := filepath.Join(t.TempDir(), "charts")
	var stdout strings.Builder
	require.NoError(t, plotMain([]string{"-peers", dir, "-out", out}, &stdout))
	assert.Equal(t, "note: no latency files under "+filepath.Join(dir, "lat")+": no CDF\n"+filepath.Join(out, "peers-throughput.png")+"\n", stdout.String())
	assert.Error(t, plotMain([]string{"-peers", filepath.Join(dir, "missing"), "-out", out}, &stdout))
}
