package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Header is the first line of sweep.csv, column by column. The cost
// columns come before errors and ok so that ok stays the last column,
// which scripts/sweep.sh reads to report each run.
var Header = []string{
	"param", "value", "iteration", "protocol",
	"throughput_ops", "strong_p50_ms", "strong_p99_ms", "weak_p50_ms", "weak_p99_ms",
	"fast_path", "slow_path", "cpu_us_per_op", "fsyncs_per_op", "errors", "ok",
}

// HeaderV1 is the header of a sweep.csv written before the cost columns
// (cpu_us_per_op, fsyncs_per_op) existed. ReadCSV reads such a file with
// those cells empty; UpgradeCSVFile rewrites it with Header so that a
// sweep can append to it.
var HeaderV1 = []string{
	"param", "value", "iteration", "protocol",
	"throughput_ops", "strong_p50_ms", "strong_p99_ms", "weak_p50_ms", "weak_p99_ms",
	"fast_path", "slow_path", "errors", "ok",
}

// costCols are the columns of Header that HeaderV1 lacks, and costAt is
// where they are in Header.
var (
	costCols = []string{"cpu_us_per_op", "fsyncs_per_op"}
	costAt   = slices.Index(Header, costCols[0])
)

// fromV1 is a record of a HeaderV1 file as a Header record: the cost cells
// are empty (not measured). rec must have len(HeaderV1) fields.
func fromV1(rec []string) []string {
	return slices.Concat(rec[:costAt], make([]string, len(costCols)), rec[costAt:])
}

// Row is one run of a sweep: the swept key and value, the iteration
// (from 1), and what the run measured. A run that left no summary has
// Measured false and every measured column empty in the CSV. A latency is
// NaN (an empty cell) when the run completed no operation of its class;
// CPUPerOp and FsyncsPerOp are NaN when the summary has no cost (an older
// build's, or a sweep.csv from before the cost columns).
type Row struct {
	Param     string
	Value     string
	Iteration int
	Protocol  string

	Measured   bool
	Throughput float64 // ops/s over the whole run
	StrongP50  float64 // ms
	StrongP99  float64 // ms
	WeakP50    float64 // ms
	WeakP99    float64 // ms
	FastPath   int64   // strong operations committed on the fast path
	SlowPath   int64   // strong operations committed on the slow path
	// CPUPerOp is the CPU time (user + system) of every process of the
	// run, replicas and clients, per completed operation, in µs:
	// summary.json's cost.per_op.cpu_us.
	CPUPerOp float64
	// FsyncsPerOp is the durable replicas' log fsyncs, summed over the
	// replicas, per completed operation (cost.per_op.fsyncs): 0 in memory
	// mode, where the replicas do none.
	FsyncsPerOp float64
	Errors      int64 // failed operations, timeouts included

	// OK is true when the run's numbers can be trusted: the launcher
	// succeeded, every process completed, and no operation failed.
	OK bool
}

// FastShare is the fraction of strong operations that took the fast path,
// NaN when there were none.
func (r Row) FastShare() float64 {
	n := r.FastPath + r.SlowPath
	if !r.Measured || n == 0 {
		return math.NaN()
	}
	return float64(r.FastPath) / float64(n)
}

// Record is r as a CSV record in Header order.
func (r Row) Record() []string {
	rec := []string{r.Param, r.Value, strconv.Itoa(r.Iteration), r.Protocol}
	if r.Measured {
		rec = append(rec, formatFloat(r.Throughput, 1),
			formatFloat(r.StrongP50, 3), formatFloat(r.StrongP99, 3),
			formatFloat(r.WeakP50, 3), formatFloat(r.WeakP99, 3),
			strconv.FormatInt(r.FastPath, 10), strconv.FormatInt(r.SlowPath, 10),
			formatFloat(r.CPUPerOp, 2), formatFloat(r.FsyncsPerOp, 5),
			strconv.FormatInt(r.Errors, 10))
	} else {
		rec = append(rec, make([]string, len(Header)-len(rec)-1)...)
	}
	return append(rec, strconv.FormatBool(r.OK))
}

// formatFloat writes x with prec decimals, and NaN as an empty cell.
func formatFloat(x float64, prec int) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'f', prec, 64)
}

// ParseRecord is the inverse of Record: rec has the columns of Header.
func ParseRecord(rec []string) (Row, error) {
	if len(rec) != len(Header) {
		return Row{}, fmt.Errorf("%d columns, want %d", len(rec), len(Header))
	}
	r := Row{Param: rec[0], Value: rec[1], Protocol: rec[3]}
	var err error
	if r.Iteration, err = strconv.Atoi(rec[2]); err != nil || r.Iteration < 1 {
		return Row{}, fmt.Errorf("iteration %q is not a positive integer", rec[2])
	}
	okCol := len(Header) - 1
	if r.OK, err = strconv.ParseBool(rec[okCol]); err != nil {
		return Row{}, fmt.Errorf("ok %q is not true or false", rec[okCol])
	}
	if strings.Join(rec[4:okCol], "") == "" {
		return r, nil
	}
	r.Measured = true
	for _, c := range []struct {
		name string
		p    *float64
	}{
		{"throughput_ops", &r.Throughput},
		{"strong_p50_ms", &r.StrongP50}, {"strong_p99_ms", &r.StrongP99},
		{"weak_p50_ms", &r.WeakP50}, {"weak_p99_ms", &r.WeakP99},
		{"cpu_us_per_op", &r.CPUPerOp}, {"fsyncs_per_op", &r.FsyncsPerOp},
	} {
		if *c.p, err = parseFloat(rec[slices.Index(Header, c.name)]); err != nil {
			return Row{}, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	for _, c := range []struct {
		name string
		p    *int64
	}{
		{"fast_path", &r.FastPath}, {"slow_path", &r.SlowPath}, {"errors", &r.Errors},
	} {
		cell := rec[slices.Index(Header, c.name)]
		if *c.p, err = strconv.ParseInt(cell, 10, 64); err != nil {
			return Row{}, fmt.Errorf("%s %q is not an integer", c.name, cell)
		}
	}
	return r, nil
}

// parseFloat reads a number, and an empty cell as NaN.
func parseFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return x, nil
}

// ReadCSV reads a sweep.csv: the header, then one row per run. name is
// used in messages, which give the line of a bad record. A file with
// HeaderV1 (from before the cost columns) is read with CPUPerOp and
// FsyncsPerOp NaN in every measured row.
func ReadCSV(name string, rd io.Reader) ([]Row, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file, want the header %s", name, strings.Join(Header, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v1 := slices.Equal(head, HeaderV1)
	if !v1 && !slices.Equal(head, Header) {
		return nil, fmt.Errorf("%s:1: header is %s, want %s", name, strings.Join(head, ","), strings.Join(Header, ","))
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if v1 {
			if len(rec) != len(HeaderV1) {
				return nil, fmt.Errorf("%s:%d: %d columns, want %d (the older header, without %s)",
					name, line, len(rec), len(HeaderV1), strings.Join(costCols, ", "))
			}
			rec = fromV1(rec)
		}
		r, err := ParseRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		rows = append(rows, r)
	}
}

// ReadCSVFile reads the sweep.csv at path.
func ReadCSVFile(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(path, f)
}

// AppendCSVFile appends r to the sweep.csv at path, creating the file with
// its header when it is missing or empty. An existing file must have the
// right header, so a sweep never appends to some other CSV, nor a row of
// 15 columns to a file of 13: a file with HeaderV1 is refused until
// UpgradeCSVFile has rewritten it.
func AppendCSVFile(path string, r Row) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	recs := [][]string{r.Record()}
	if st.Size() == 0 {
		recs = append([][]string{Header}, recs...)
	} else {
		head, err := csv.NewReader(f).Read()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if slices.Equal(head, HeaderV1) {
			return fmt.Errorf("%s: a sweep.csv from before the columns %s: upgrade it first (sweepstat row does)",
				path, strings.Join(costCols, ", "))
		}
		if !slices.Equal(head, Header) {
			return fmt.Errorf("%s: not a sweep.csv (header %s)", path, strings.Join(head, ","))
		}
		if _, err := f.Seek(0, io.SeekEnd); err != nil {
			return err
		}
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(recs); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// UpgradeCSVFile rewrites the sweep.csv at path with Header when it has
// HeaderV1, each row with empty cost cells (not measured), and says
// whether it did. Any other file (missing, empty, current, or not a
// sweep.csv) is left alone for AppendCSVFile to judge. The new file
// replaces the old by a rename, so a failure leaves the old one whole.
func UpgradeCSVFile(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Equal(head, HeaderV1) {
		return false, nil
	}
	recs := [][]string{Header}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(HeaderV1) {
			line, _ := cr.FieldPos(0)
			return false, fmt.Errorf("%s:%d: %d columns, want %d: not upgraded", path, line, len(rec), len(HeaderV1))
		}
		recs = append(recs, fromV1(rec))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is none
	w := csv.NewWriter(tmp)
	if err := w.WriteAll(recs); err != nil {
		tmp.Close()
		return false, fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return false, err
	}
	return true, nil
}
