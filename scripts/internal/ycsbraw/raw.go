package ycsbraw

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Header is the first line of a raw measurement file.
const Header = "operation,timestamp_us,latency_us"

// Samples are the operations of one raw measurement file.
type Samples struct {
	// Ops are the operation names (READ, UPDATE, TOTAL, READ_ERROR...)
	// in order of first appearance.
	Ops []string
	// LatencyUs holds each operation's latencies in µs, in file order.
	LatencyUs map[string][]int64
	// FirstStartUs and LastEndUs bound the operations in time (µs since
	// the Unix epoch): the earliest start and the latest start plus
	// latency. Both are 0 when there is no operation.
	FirstStartUs, LastEndUs int64
}

// Count is the number of samples of op.
func (s *Samples) Count(op string) int { return len(s.LatencyUs[op]) }

// ReadFile reads a raw measurement file; a name ending in .gz is read
// through gzip.
func ReadFile(path string) (*Samples, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	return Read(r, path)
}

// Read reads a raw measurement file from r; name is for the errors,
// which give the line of the first bad one.
func Read(r io.Reader, name string) (*Samples, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, fmt.Errorf("%s: empty, not a go-ycsb raw measurement file (its first line is %q)", name, Header)
	}
	if h := strings.TrimSuffix(sc.Text(), "\r"); h != Header {
		return nil, fmt.Errorf("%s: first line %q is not %q: not a go-ycsb raw measurement file (measurementtype=raw)", name, h, Header)
	}
	s := &Samples{LatencyUs: map[string][]int64{}}
	for line := 2; sc.Scan(); line++ {
		op, start, lat, err := parseLine(strings.TrimSuffix(sc.Text(), "\r"))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if _, ok := s.LatencyUs[op]; !ok {
			s.Ops = append(s.Ops, op)
		}
		s.LatencyUs[op] = append(s.LatencyUs[op], lat)
		if s.FirstStartUs == 0 || start < s.FirstStartUs {
			s.FirstStartUs = start
		}
		s.LastEndUs = max(s.LastEndUs, start+lat)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// parseLine splits "OP,START_US,LATENCY_US".
func parseLine(l string) (op string, start, lat int64, err error) {
	f := strings.Split(l, ",")
	if len(f) != 3 {
		return "", 0, 0, fmt.Errorf("%d fields in %q, want 3 (%s)", len(f), l, Header)
	}
	if f[0] == "" {
		return "", 0, 0, errors.New("no operation name")
	}
	start, err = strconv.ParseInt(f[1], 10, 64)
	if err != nil || start <= 0 {
		return "", 0, 0, fmt.Errorf("timestamp_us %q is not a positive whole number of µs", f[1])
	}
	lat, err = strconv.ParseInt(f[2], 10, 64)
	if err != nil || lat < 0 {
		return "", 0, 0, fmt.Errorf("latency_us %q is not a whole number of µs, 0 or more", f[2])
	}
	return f[0], start, lat, nil
}
