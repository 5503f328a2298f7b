package client

import (
	"fmt"
	"math"
)

// ZipfTable is a Zipf distribution over the keys [0, n) with
// P(k) ∝ 1/(k+1)^s, for any s >= 0 (math/rand's Zipf needs s > 1, and the
// benchmark's common 0.99 is below that). It holds the cumulative
// distribution, built once; a draw is one binary search. The table is
// read-only after construction, so every thread of a process shares one
// (8 bytes per key: 8 MB at a million keys).
type ZipfTable struct {
	s   float64
	cdf []float64 // cdf[k] = P(key <= k); cdf[n-1] == 1
}

// NewZipfTable builds the table for n keys and exponent s.
func NewZipfTable(n int64, s float64) (*ZipfTable, error) {
	if n < 1 || n > MaxZipfKeys {
		return nil, fmt.Errorf("zipf: key space %d is not in [1, %d]", n, MaxZipfKeys)
	}
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: exponent %v is not a non-negative number", s)
	}
	cdf := make([]float64, n)
	var sum float64
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	cdf[n-1] = 1
	return &ZipfTable{s: s, cdf: cdf}, nil
}

// Keys is the size of the key space.
func (t *ZipfTable) Keys() int64 { return int64(len(t.cdf)) }

// Skew is the exponent s.
func (t *ZipfTable) Skew() float64 { return t.s }

// Key maps a uniform u in [0, 1) to a key: the smallest k with u < cdf[k].
func (t *ZipfTable) Key(u float64) int64 {
	lo, hi := 0, len(t.cdf)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if u < t.cdf[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return int64(lo)
}

// Prob is P(key = k) under the table.
func (t *ZipfTable) Prob(k int64) float64 {
	if k < 0 || k >= int64(len(t.cdf)) {
		return 0
	}
	if k == 0 {
		return t.cdf[0]
	}
	return t.cdf[k] - t.cdf[k-1]
}
