package client

import (
	"fmt"
	"math"
)

// ZipfTable is a Zipf distribution over the keys [0, n) with
// P(k) ∝ 1/(k+1)^s, for any s >= 0 (math/rand's Zipf needs s > 1, and the
// benchmark's common 0.99 is below that). It holds the cumulative
// distribution, built once, and a guide: for each of guideSize equal
// slices of [0, 1), the first key whose cumulative probability reaches the
// slice. A draw is a binary search inside its slice's keys only: a few
// steps over neighbouring entries, where a search of the whole table
// would miss the cache some twenty times at a million keys. The table is
// read-only after construction, so every thread of a process shares one
// (8 bytes per key: 8 MB at a million keys).
type ZipfTable struct {
	s     float64
	cdf   []float64 // cdf[k] = P(key <= k); cdf[n-1] == 1
	guide []int32   // guide[g] = the smallest k with cdf[k] > g/guideSize
}

// guideSize is the number of slices of the guide (256 KB of it).
const guideSize = 1 << 16

// NewZipfTable builds the table for n keys and exponent s.
func NewZipfTable(n int64, s float64) (*ZipfTable, error) {
	if n < 1 || n > MaxZipfKeys {
		return nil, fmt.Errorf("zipf: key space %d is not in [1, %d]", n, MaxZipfKeys)
	}
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: exponent %v is not a non-negative number", s)
	}
	cdf := zipfWeights(int(n), s)
	var sum float64
	for k, w := range cdf {
		sum += w
		cdf[k] = sum
	}
	inv := 1 / sum
	for k := range cdf {
		cdf[k] *= inv
	}
	cdf[n-1] = 1
	guide := make([]int32, guideSize+1)
	k := 0
	for g := range guide {
		for k < len(cdf)-1 && cdf[k] <= float64(g)/guideSize {
			k++
		}
		guide[g] = int32(k)
	}
	return &ZipfTable{s: s, cdf: cdf, guide: guide}, nil
}

// Keys is the size of the key space.
func (t *ZipfTable) Keys() int64 { return int64(len(t.cdf)) }

// Skew is the exponent s.
func (t *ZipfTable) Skew() float64 { return t.s }

// Key maps a uniform u in [0, 1) to a key: the smallest k with u < cdf[k].
func (t *ZipfTable) Key(u float64) int64 {
	// The key is at least guide[g], where g/guideSize <= u, and at most
	// guide[g+1], where u < (g+1)/guideSize.
	g := int(u * guideSize)
	lo, hi := int(t.guide[g]), int(t.guide[g+1])
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

// zipfWeights returns w[k] = (k+1)^-s for k in [0, n). math.Pow for a
// million keys was most of the cost of a table (some 50 ms, paid by every
// client process), so past the first keys each weight is the previous one
// times (x/(x+1))^s = exp(-s·log1p(1/x)), both short series when 1/x is
// below 2^-10, and every anchorEvery keys the weight is computed exactly
// again, so that rounding cannot build up.
func zipfWeights(n int, s float64) []float64 {
	const (
		seriesFrom  = 1 << 10
		anchorEvery = 1 << 12
	)
	w := make([]float64, n)
	for k := range w {
		x := float64(k + 1)
		if k < seriesFrom || k%anchorEvery == 0 {
			w[k] = math.Pow(x, -s)
			continue
		}
		// u = 1/(x-1): the step from the weight of x-1 to that of x.
		u := 1 / (x - 1)
		l := u * (1 - u*(1.0/2-u*(1.0/3-u*(1.0/4-u*(1.0/5)))))
		z := -s * l
		w[k] = w[k-1] * (1 + z*(1+z*(1.0/2+z*(1.0/6+z*(1.0/24+z*(1.0/120))))))
	}
	return w
}
