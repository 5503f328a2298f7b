package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Header is the first line of sweep.csv, column by column.
var Header = []string{
	"param", "value", "iteration", "protocol",
	"throughput_ops", "strong_p50_ms", "strong_p99_ms", "weak_p50_ms", "weak_p99_ms",
	"fast_path", "slow_path", "errors", "ok",
}

// Row is one run of a sweep: the swept key and value, the iteration
// (from 1), and what the run measured. A run that left no summary has
// Measured false and every measured column empty in the CSV. A latency is
// NaN (an empty cell) when the run completed no operation of its class.
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
	Errors     int64   // failed operations, timeouts included

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
			strconv.FormatInt(r.Errors, 10))
	} else {
		rec = append(rec, "", "", "", "", "", "", "", "")
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

// ParseRecord is the inverse of Record.
func ParseRecord(rec []string) (Row, error) {
	if len(rec) != len(Header) {
		return Row{}, fmt.Errorf("%d columns, want %d", len(rec), len(Header))
	}
	r := Row{Param: rec[0], Value: rec[1], Protocol: rec[3]}
	var err error
	if r.Iteration, err = strconv.Atoi(rec[2]); err != nil || r.Iteration < 1 {
		return Row{}, fmt.Errorf("iteration %q is not a positive integer", rec[2])
	}
	if r.OK, err = strconv.ParseBool(rec[12]); err != nil {
		return Row{}, fmt.Errorf("ok %q is not true or false", rec[12])
	}
	measured := rec[4:12]
	if strings.Join(measured, "") == "" {
		return r, nil
	}
	r.Measured = true
	floats := []*float64{&r.Throughput, &r.StrongP50, &r.StrongP99, &r.WeakP50, &r.WeakP99}
	for i, p := range floats {
		if *p, err = parseFloat(measured[i]); err != nil {
			return Row{}, fmt.Errorf("%s: %w", Header[4+i], err)
		}
	}
	for i, p := range []*int64{&r.FastPath, &r.SlowPath, &r.Errors} {
		col := 4 + len(floats) + i
		if *p, err = strconv.ParseInt(rec[col], 10, 64); err != nil {
			return Row{}, fmt.Errorf("%s %q is not an integer", Header[col], rec[col])
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
// used in messages, which give the line of a bad record.
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
	if !slices.Equal(head, Header) {
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
		r, err := ParseRecord(rec)
		if err != nil {
			line, _ := cr.FieldPos(0)
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
// right header, so a sweep never appends to some other CSV.
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
