package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// rssHeader is the first line of rss.csv (run-multi-client.sh --sample-rss).
const rssHeader = "unix_ms,alias,rss_kb"

// rssRow is one line of rss.csv: one reading of one replica's VmRSS.
type rssRow struct {
	UnixMs int64
	Alias  string
	KB     int64
}

// rssSample is one reading of one replica, on the run's time axis.
type rssSample struct {
	T   float64 // seconds since the clients started (start_unix_ms)
	MiB float64
}

// memoryRun is what -memory reads from one run directory.
type memoryRun struct {
	Label    string
	Protocol string
	StartMs  int64
	Timeline []int64 // operations completed in each second since StartMs
	Rows     []rssRow
}

// seconds is the run length T: the number of whole seconds of the
// timeline.
func (m memoryRun) seconds() float64 { return float64(len(m.Timeline)) }

// sinceStart puts a wall-clock time on the run's axis.
func (m memoryRun) sinceStart(unixMs int64) float64 { return float64(unixMs-m.StartMs) / 1000 }

// replicas are the aliases of rss.csv in natural order (replica2 before
// replica10).
func (m memoryRun) replicas() []string {
	var as []string
	for _, r := range m.Rows {
		if !slices.Contains(as, r.Alias) {
			as = append(as, r.Alias)
		}
	}
	slices.SortFunc(as, aliasCmp)
	return as
}

// samples are the readings of one replica in time order.
func (m memoryRun) samples(alias string) []rssSample {
	var out []rssSample
	for _, r := range m.Rows {
		if r.Alias == alias {
			out = append(out, rssSample{T: m.sinceStart(r.UnixMs), MiB: float64(r.KB) / 1024})
		}
	}
	return out
}

// rssRound is one pass of the sampler over the replicas.
type rssRound struct {
	T   float64            // of its first reading
	MiB map[string]float64 // by alias; a replica that was down is absent
}

// rounds groups the rows into passes of the sampler. The sampler reads
// every live replica once per pass, a few milliseconds apart, so a pass
// ends where an alias comes again; a replica missing from a pass (its
// process gone) leaves a hole rather than shifting the others.
func (m memoryRun) rounds() []rssRound {
	var out []rssRound
	for _, r := range m.Rows {
		if len(out) == 0 {
			out = append(out, rssRound{T: m.sinceStart(r.UnixMs), MiB: map[string]float64{}})
		}
		if _, seen := out[len(out)-1].MiB[r.Alias]; seen {
			out = append(out, rssRound{T: m.sinceStart(r.UnixMs), MiB: map[string]float64{}})
		}
		out[len(out)-1].MiB[r.Alias] = float64(r.KB) / 1024
	}
	return out
}

// aliasCmp orders aliases by their text, then by their trailing number.
func aliasCmp(a, b string) int {
	pa, na := splitNumber(a)
	pb, nb := splitNumber(b)
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	if na != nb {
		return na - nb
	}
	return strings.Compare(a, b)
}

// splitNumber splits "replica12" into "replica" and 12 (-1 if none).
func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return s, -1
	}
	return s[:i], n
}

// minSamples is the fewest readings of a replica that can say whether
// its memory is flat.
const minSamples = 2

// loadMemoryRun reads dir/summary.json and dir/rss.csv.
func loadMemoryRun(dir string) (memoryRun, error) {
	m, err := readMemorySummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		return memoryRun{}, err
	}
	m.Label = dirLabel(dir)
	path := filepath.Join(dir, "rss.csv")
	if m.Rows, err = readRSS(path); err != nil {
		return memoryRun{}, err
	}
	for _, a := range m.replicas() {
		if n := len(m.samples(a)); n < minSamples {
			return memoryRun{}, fmt.Errorf("%s: %s has %d sample(s), need at least %d", path, a, n, minSamples)
		}
	}
	return m, nil
}

// dirLabel is the default label of a run: its directory's name.
func dirLabel(dir string) string { return filepath.Base(filepath.Clean(dir)) }

// memorySummary is the part of summary.json (bench.RunSummary) that
// -memory reads; the pointer tells a missing start from a zero one.
type memorySummary struct {
	Protocol    string   `json:"protocol"`
	StartUnixMs *int64   `json:"start_unix_ms"`
	Timeline    []int64  `json:"timeline"`
	DurationS   *float64 `json:"duration_s"`
}

// readMemorySummary reads the run's start and throughput timeline.
func readMemorySummary(path string) (memoryRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return memoryRun{}, err
	}
	var s memorySummary
	if err := json.Unmarshal(data, &s); err != nil {
		return memoryRun{}, jsonError(path, data, err)
	}
	switch {
	case s.StartUnixMs == nil:
		return memoryRun{}, fmt.Errorf("%s: no start_unix_ms", path)
	case len(s.Timeline) < 10:
		// A tenth of the run must hold at least one second.
		return memoryRun{}, fmt.Errorf("%s: the timeline has %d second(s), need at least 10", path, len(s.Timeline))
	}
	if i := slices.IndexFunc(s.Timeline, func(n int64) bool { return n < 0 }); i >= 0 {
		return memoryRun{}, fmt.Errorf("%s: timeline[%d] is negative (%d)", path, i, s.Timeline[i])
	}
	// The last second of the timeline is usually a part of one (a run of
	// 60.01 s ends with a bucket of 10 ms): counted as a whole second, it
	// would drag the last tenth's mean down. Only whole seconds count.
	if s.DurationS != nil {
		if whole := int(*s.DurationS); whole >= 10 && whole < len(s.Timeline) {
			s.Timeline = s.Timeline[:whole]
		}
	}
	return memoryRun{Protocol: s.Protocol, StartMs: *s.StartUnixMs, Timeline: s.Timeline}, nil
}

// jsonError names the line of a JSON decoding error when it has one.
func jsonError(path string, data []byte, err error) error {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Errorf("%s:%d: %w", path, 1+bytes.Count(data[:off], []byte("\n")), err)
}

// readRSS reads rss.csv. Every line must be well formed, and each
// replica's readings in time order, since a chart or a verdict drawn
// from a damaged file would look like a finding.
func readRSS(path string) ([]rssRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var rows []rssRow
	last := map[string]int64{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if n == 1 {
			if line != rssHeader {
				return nil, fmt.Errorf("%s:1: header is %q, want %q", path, line, rssHeader)
			}
			continue
		}
		r, err := parseRSSRow(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if t, ok := last[r.Alias]; ok && r.UnixMs <= t {
			return nil, fmt.Errorf("%s:%d: %s's reading at %d ms is not after its previous one at %d ms", path, n, r.Alias, r.UnixMs, t)
		}
		last[r.Alias] = r.UnixMs
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no samples (was the run started with --sample-rss?)", path)
	}
	return rows, nil
}

// parseRSSRow parses "unix_ms,alias,rss_kb".
func parseRSSRow(line string) (rssRow, error) {
	f := strings.Split(line, ",")
	if len(f) != 3 {
		return rssRow{}, fmt.Errorf("%q has %d fields, want 3 (%s)", line, len(f), rssHeader)
	}
	ms, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ms <= 0 {
		return rssRow{}, fmt.Errorf("unix_ms %q is not a positive integer", f[0])
	}
	if f[1] == "" {
		return rssRow{}, errors.New("empty alias")
	}
	kb, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || kb < 0 {
		return rssRow{}, fmt.Errorf("rss_kb %q is not a non-negative integer", f[2])
	}
	return rssRow{UnixMs: ms, Alias: f[1], KB: kb}, nil
}
