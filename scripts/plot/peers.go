package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"swiftpaxos/scripts/internal/sweep"
)

// peersColumns are the columns of scripts/peers/run.sh's peers.csv that
// -peers reads; the others (latencies, CPU, command lines) are the
// table's. They are found by name, so that a column added to the file
// does not move them.
var peersColumns = []string{"round", "threads", "system", "workload", "ops_per_s", "status"}

// peerRow is one row of peers.csv: one cell (round, thread setting,
// system, workload), go-ycsb's load and run phases against a system
// started for it.
type peerRow struct {
	Line     int // in peers.csv, for errors
	Round    int
	Threads  int
	System   string
	Workload string // a-f
	OpsPerS  float64
	OK       bool // status ok: the only rows the charts use
}

// peers is what -peers draws: the rows of DIR/peers.csv and the orders
// of every chart. Systems keep the order in which they first appear in
// the file (run.sh's -s order), which also fixes each system's colour
// on every chart.
type peers struct {
	Dir       string
	Rows      []peerRow
	Systems   []string
	Threads   []int    // ascending
	Workloads []string // alphabetical
}

// loadPeers reads DIR/peers.csv.
func loadPeers(dir string) (peers, error) {
	path := filepath.Join(dir, "peers.csv")
	f, err := os.Open(path)
	if err != nil {
		return peers{}, fmt.Errorf("%w (is %s an output directory of scripts/peers/run.sh?)", err, dir)
	}
	defer f.Close()
	rows, err := readPeersCSV(f, path)
	if err != nil {
		return peers{}, err
	}
	d := peers{Dir: dir, Rows: rows}
	for _, r := range rows {
		if !slices.Contains(d.Systems, r.System) {
			d.Systems = append(d.Systems, r.System)
		}
		if !slices.Contains(d.Threads, r.Threads) {
			d.Threads = append(d.Threads, r.Threads)
		}
		if !slices.Contains(d.Workloads, r.Workload) {
			d.Workloads = append(d.Workloads, r.Workload)
		}
	}
	slices.Sort(d.Threads)
	slices.Sort(d.Workloads)
	return d, nil
}

// readPeersCSV parses peers.csv; name is for the errors. A row with a
// malformed field, a cell with two ok rows, or a file with no ok row is
// an error.
func readPeersCSV(r io.Reader, name string) ([]peerRow, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty, not a peers.csv of scripts/peers/run.sh", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s: column %q twice in the header", name, h)
		}
		col[h] = i
	}
	var missing []string
	for _, c := range peersColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no column %s in the header (want %s: a peers.csv of scripts/peers/run.sh)",
			name, strings.Join(missing, ", "), strings.Join(peersColumns, ", "))
	}
	var rows []peerRow
	okLine := map[[4]string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		row, err := parsePeerRow(rec, col, line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if row.OK {
			k := [4]string{rec[col["round"]], rec[col["threads"]], row.System, row.Workload}
			if prev, dup := okLine[k]; dup {
				return nil, fmt.Errorf("%s:%d: a second ok row of round %d, %d threads, %s, workload %s (the first is line %d)",
					name, line, row.Round, row.Threads, row.System, row.Workload, prev)
			}
			okLine[k] = line
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no cells, only the header", name)
	}
	if len(okLine) == 0 {
		return nil, fmt.Errorf("%s: no cell with status ok, nothing to draw", name)
	}
	return rows, nil
}

func parsePeerRow(rec []string, col map[string]int, line int) (peerRow, error) {
	get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
	r := peerRow{Line: line, System: get("system"), Workload: get("workload"), OK: get("status") == "ok"}
	var err error
	if r.Round, err = strconv.Atoi(get("round")); err != nil || r.Round < 1 {
		return r, fmt.Errorf("round %q is not a positive whole number", get("round"))
	}
	if r.Threads, err = strconv.Atoi(get("threads")); err != nil || r.Threads < 1 {
		return r, fmt.Errorf("threads %q is not a positive whole number", get("threads"))
	}
	if r.System == "" {
		return r, errors.New("no system")
	}
	if len(r.Workload) != 1 || r.Workload[0] < 'a' || r.Workload[0] > 'f' {
		return r, fmt.Errorf("workload %q is not one of the core workloads a-f", r.Workload)
	}
	if get("status") == "" {
		return r, errors.New("no status (ok, or why not)")
	}
	if !r.OK {
		return r, nil // a failed cell's throughput is not drawn
	}
	if r.OpsPerS, err = strconv.ParseFloat(get("ops_per_s"), 64); err != nil || !(r.OpsPerS > 0) {
		return r, fmt.Errorf("ops_per_s %q of an ok cell is not a positive number", get("ops_per_s"))
	}
	return r, nil
}

// cell is what the ok rounds of one (thread setting, system, workload)
// say, and how many rows that setting has in all.
type cell struct {
	Throughput sweep.Stat // over the ok rows: median, min, max, N
	OKRows     []peerRow
	Rows       int // ok or not
}

// cell collects the rows of one thread setting, system and workload.
func (d peers) cell(threads int, system, workload string) cell {
	var c cell
	var xs []float64
	for _, r := range d.Rows {
		if r.Threads != threads || r.System != system || r.Workload != workload {
			continue
		}
		c.Rows++
		if r.OK {
			c.OKRows = append(c.OKRows, r)
			xs = append(xs, r.OpsPerS)
		}
	}
	c.Throughput = sweep.Describe(xs)
	return c
}

// systemColour is a system's colour index: its place in d.Systems.
func (d peers) systemColour(system string) int { return slices.Index(d.Systems, system) }
