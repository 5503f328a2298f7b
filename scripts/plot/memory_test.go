package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
)

const fixtureStartMs = 1795505700000

// memoryFixture is a synthetic run of T seconds: ops(i) operations in
// second i, and three replicas read every 10 s from 8 s before the start
// to after the end (3 ms apart, as the sampler does), replica r at
// kb(r, t) KiB, or absent when kb returns a negative value.
type memoryFixture struct {
	T   int
	ops func(i int) int64
	kb  func(r int, t float64) int64
}

func flatOps(int) int64 { return 1000 }

func flatKB(r int, t float64) int64 {
	// 100 MiB and a little noise, as a garbage collector makes.
	return int64(100*1024+r*2048) + int64(t)%7*200
}

// write creates dir/summary.json and dir/rss.csv.
func (f memoryFixture) write(t *testing.T, dir string) {
	t.Helper()
	timeline := make([]int64, f.T)
	for i := range timeline {
		timeline[i] = f.ops(i)
	}
	sum, err := json.MarshalIndent(map[string]any{"protocol": "curpho", "start_unix_ms": fixtureStartMs,
		"timeline": timeline, "duration_s": float64(f.T), "ops": 12345}, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "summary.json"), sum, 0o644))
	var csv strings.Builder
	csv.WriteString(rssHeader + "\n")
	for s := -8; s <= f.T+5; s += 10 {
		for r := range 3 {
			ms := fixtureStartMs + int64(s)*1000 + int64(3*r)
			if kb := f.kb(r, float64(s)); kb >= 0 {
				fmt.Fprintf(&csv, "%d,replica%d,%d\n", ms, r, kb)
			}
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rss.csv"), []byte(csv.String()), 0o644))
}

// load writes f and reads it back.
func (f memoryFixture) load(t *testing.T) memoryRun {
	t.Helper()
	dir := t.TempDir()
	f.write(t, dir)
	m, err := loadMemoryRun(dir)
	require.NoError(t, err)
	return m
}

func TestLoadMemoryRun(t *testing.T) {
	m := memoryFixture{T: 600, ops: flatOps, kb: flatKB}.load(t)
	assert.Equal(t, "curpho", m.Protocol)
	assert.Equal(t, int64(fixtureStartMs), m.StartMs)
	assert.Len(t, m.Timeline, 600)
	assert.Equal(t, []string{"replica0", "replica1", "replica2"}, m.replicas())
	ss := m.samples("replica1")
	require.Len(t, ss, 62) // -8, 2, ..., 602
	assert.InDelta(t, -7.997, ss[0].T, 1e-9)
	assert.InDelta(t, float64(100*1024+2048-200)/1024, ss[0].MiB, 1e-9) // at t=-8, -8%7 = -1: -200 KiB
	assert.Len(t, m.rounds(), 62)
}

// TestPartialLastSecondIsLeftOut: a run of 60.01 s has a 61st bucket of
// 10 ms; counted as a second, it would read as a drop of throughput.
func TestPartialLastSecondIsLeftOut(t *testing.T) {
	dir := t.TempDir()
	memoryFixture{T: 60, ops: flatOps, kb: flatKB}.write(t, dir)
	path := filepath.Join(dir, "summary.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var sum map[string]any
	require.NoError(t, json.Unmarshal(data, &sum))
	sum["timeline"] = append(sum["timeline"].([]any), 10.0)
	sum["duration_s"] = 60.01
	data, err = json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))

	m, err := loadMemoryRun(dir)
	require.NoError(t, err)
	assert.Equal(t, 60.0, m.seconds())
	f := judge(m)
	assert.Equal(t, 1000.0, f.Throughput.Last, "the last tenth holds only whole seconds")
	assert.True(t, f.Throughput.Pass())
}

func TestJudge(t *testing.T) {
	grow := func(r int, s float64) int64 {
		if r == 1 && s >= 540 {
			return 120 * 1024 // +20% over the last tenth
		}
		return 100 * 1024
	}
	for _, tc := range []struct {
		name       string
		f          memoryFixture
		rssPass    []bool
		worst      []float64
		tputChange float64
		tputPass   bool
	}{
		{"flat", memoryFixture{T: 600, ops: flatOps, kb: flatKB}, []bool{true, true, true}, nil, 0, true},
		{"replica1 grows 20% in the last tenth", memoryFixture{T: 600, ops: flatOps, kb: grow},
			[]bool{true, false, true}, []float64{0, 0.2, 0}, 0, true},
		{"exactly 10% is within the rule", memoryFixture{T: 600, ops: flatOps, kb: func(r int, s float64) int64 {
			if s >= 540 {
				return 110 * 1024
			}
			return 100 * 1024
		}}, []bool{true, true, true}, []float64{0.1, 0.1, 0.1}, 0, true},
		{"throughput drops 15% in the last tenth", memoryFixture{T: 600, kb: flatKB, ops: func(i int) int64 {
			if i >= 540 {
				return 850
			}
			return 1000
		}}, []bool{true, true, true}, nil, -0.15, false},
		{"throughput drops 10%", memoryFixture{T: 600, kb: flatKB, ops: func(i int) int64 {
			if i >= 540 {
				return 900
			}
			return 1000
		}}, []bool{true, true, true}, nil, -0.10, true},
		{"a drop in the middle does not count", memoryFixture{T: 600, kb: flatKB, ops: func(i int) int64 {
			if i >= 100 && i < 539 {
				return 10
			}
			return 1000
		}}, []bool{true, true, true}, nil, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := judge(tc.f.load(t))
			assert.Equal(t, 600.0, f.T)
			require.Len(t, f.Replicas, 3)
			for i, r := range f.Replicas {
				assert.Equal(t, fmt.Sprintf("replica%d", i), r.Alias)
				// Readings at 52 and 62 s: the nearest to T/10 = 60 is 62.
				assert.InDelta(t, 62.0, r.Ref.T, 0.01)
				// [540, 600] holds the readings at 542, 552, ..., 592.
				assert.Len(t, r.Last, 6)
				assert.Equal(t, tc.rssPass[i], r.Pass(), r.Alias)
				if tc.worst != nil {
					assert.InDelta(t, tc.worst[i], r.Worst, 1e-9, r.Alias)
				}
			}
			assert.InDelta(t, tc.tputChange, f.Throughput.Change(), 1e-9)
			assert.Equal(t, tc.tputPass, f.Throughput.Pass())
			assert.Equal(t, tc.tputPass && !slices.Contains(tc.rssPass, false), f.Pass())
		})
	}
}

func TestJudgeMissingReplica(t *testing.T) {
	// replica2 is gone after 300 s: no reading in the last tenth.
	m := memoryFixture{T: 600, ops: flatOps, kb: func(r int, s float64) int64 {
		if r == 2 && s > 300 {
			return -1
		}
		return flatKB(r, s)
	}}.load(t)
	f := judge(m)
	assert.True(t, f.Replicas[0].Pass())
	assert.False(t, f.Replicas[2].Pass())
	assert.Empty(t, f.Replicas[2].Last)
	assert.False(t, f.Pass())

	var out bytes.Buffer
	require.NoError(t, writeFlatnessReport(&out, []memoryRun{m}))
	assert.Contains(t, out.String(), "| replica2 | 105.2 (t=62 s) | no reading | — | FAIL |")
	// The curve keeps one row per pass, with a hole for replica2.
	assert.Contains(t, out.String(), "| 312 | 100.8 | 102.8 | — |\n")
}

func TestFlatnessReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "curpho-10min")
	require.NoError(t, os.Mkdir(dir, 0o755))
	memoryFixture{T: 600, ops: flatOps, kb: flatKB}.write(t, dir)
	m, err := loadMemoryRun(dir)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, writeFlatnessReport(&out, []memoryRun{m}))
	s := out.String()
	// replica0 at 62 s: 100 MiB + 62%7*200 KiB = 103600 KiB; from 542 to
	// 592 s it reads 100 MiB + 600, 1200, 400, 1000, 200, 800 KiB: at
	// worst (102600-103600)/103600 = -0.97%.
	assert.Contains(t, s, "| curpho-10min | replica0 | 101.2 (t=62 s) | 100.2–101.2 (6 readings) | -1.0% | PASS |\n")
	assert.Contains(t, s, "| curpho-10min | 600 | 1000 | 1000 | +0.0% | PASS |\n")
	assert.Contains(t, s, "Run curpho-10min: PASS.\n")
	assert.Contains(t, s, "| t (s) | replica0 | replica1 | replica2 |\n")
	assert.Contains(t, s, "| -8 | 99.8 | 101.8 | 103.8 |\n")
	assert.Contains(t, s, "| 602 | 100.0 | 102.0 | 104.0 |\n")
}

func TestWriteMemoryCharts(t *testing.T) {
	m := memoryFixture{T: 120, ops: flatOps, kb: flatKB}.load(t)
	m.Label = "flat run"
	out := t.TempDir()
	files, err := writeMemoryCharts([]memoryRun{m}, out, "p-")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(out, "p-memory-flat_run.png")}, files)
	requirePNG(t, files[0])
}

func TestPlotMainMemory(t *testing.T) {
	dir := t.TempDir()
	memoryFixture{T: 100, ops: flatOps, kb: flatKB}.write(t, dir)
	out := filepath.Join(t.TempDir(), "charts")
	var stdout bytes.Buffer
	require.NoError(t, plotMain([]string{"-memory", dir, "-labels", "ten", "-out", out}, &stdout))
	assert.Contains(t, stdout.String(), "| ten | replica1 |")
	assert.Contains(t, stdout.String(), filepath.Join(out, "memory-ten.png")+"\n")
	requirePNG(t, filepath.Join(out, "memory-ten.png"))

	err := plotMain([]string{"-memory", dir + "," + dir, "-labels", "one", "-out", out}, &stdout)
	assert.ErrorContains(t, err, "-labels has 1 labels for 2 -memory directories")
}

func TestLoadMemoryRunErrors(t *testing.T) {
	good := memoryFixture{T: 100, ops: flatOps, kb: flatKB}
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"bad number", "rss.csv", rssHeader + "\n1795505700000,replica0,100\n1795505700003,replica1,100\n1795505710000,replica0,12x\n", "rss.csv:4: rss_kb \"12x\""},
		{"short line", "rss.csv", rssHeader + "\n1795505700000,replica0,100\n1795505700003,replica1\n", "rss.csv:3: \"1795505700003,replica1\" has 2 fields"},
		{"header", "rss.csv", "ms,alias,kb\n", "rss.csv:1: header"},
		{"time goes back", "rss.csv", rssHeader + "\n1795505710000,replica0,100\n1795505700000,replica0,100\n", "rss.csv:3: replica0's reading"},
		{"empty", "rss.csv", rssHeader + "\n", "rss.csv: no samples"},
		{"one sample", "rss.csv", rssHeader + "\n1795505700000,replica0,100\n1795505710000,replica0,100\n1795505710003,replica1,100\n", "rss.csv: replica1 has 1 sample(s), need at least 2"},
		{"json syntax", "summary.json", "{\n  \"protocol\": \"curpho\",\n  \"timeline\": [1, 2,]\n}\n", "summary.json:3: invalid character"},
		{"json type", "summary.json", "{\n  \"protocol\": \"curpho\",\n\n  \"start_unix_ms\": \"soon\"\n}\n", "summary.json:4: json: cannot unmarshal"},
		{"no start", "summary.json", `{"protocol": "curpho", "timeline": [1,1,1,1,1,1,1,1,1,1]}`, "summary.json: no start_unix_ms"},
		{"short timeline", "summary.json", `{"start_unix_ms": 1, "timeline": [1, 2]}`, "summary.json: the timeline has 2 second(s), need at least 10"},
		{"negative ops", "summary.json", `{"start_unix_ms": 1, "timeline": [1,1,1,-1,1,1,1,1,1,1]}`, "summary.json: timeline[3] is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			good.write(t, dir)
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644))
			_, err := loadMemoryRun(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, tc.want))
		})
	}
	for _, missing := range []string{"rss.csv", "summary.json"} {
		dir := t.TempDir()
		good.write(t, dir)
		require.NoError(t, os.Remove(filepath.Join(dir, missing)))
		_, err := loadMemoryRun(dir)
		assert.ErrorContains(t, err, filepath.Join(dir, missing))
	}
}

func TestAliasOrder(t *testing.T) {
	as := []string{"replica10", "replica2", "replica0", "witness", "replica1"}
	slices.SortFunc(as, aliasCmp)
	assert.Equal(t, []string{"replica0", "replica1", "replica2", "replica10", "witness"}, as)
}

func TestMovingMean(t *testing.T) {
	// Window 4: from i-2 to i+1, cut at the ends.
	assert.Equal(t, []float64{1.5, 2, 2.5, 3.5, 4}, movingMean([]int64{1, 2, 3, 4, 5}, 4))
	assert.Equal(t, []float64{7}, movingMean([]int64{7}, 10))
}

func TestSegments(t *testing.T) {
	ss := []rssSample{{0, 1}, {10, 2}, {20, 3}, {50, 4}, {60, 5}, {70.5, 6}}
	segs := segments(ss)
	require.Len(t, segs, 2, "the 30-s hole breaks the line")
	assert.Len(t, segs[0], 3)
	assert.Equal(t, plotter.XY{X: 50, Y: 4}, segs[1][0])
	assert.Len(t, segments(ss[:1]), 1)
}
