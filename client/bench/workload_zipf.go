package bench

import (
	"fmt"
	"math"
	"math/bits"
)

// ZipfTable is a Zipf distribution over the keys [0, n) with
// P(k) ∝ 1/(k+1)^s, for any s >= 0 (math/rand's Zipf needs s > 1, and the
// benchmark's common 0.99 is below that). It is an alias table (Vose's
// method), built once: n slots of equal probability, each of which keeps
// its own key with some probability and otherwise gives another. A draw
// reads one slot, one cache line, where a search of a cumulative table
// missed the cache several times per draw at a million keys on a busy
// machine. The table is read-only after construction, so every thread of
// a process shares one (8 bytes per key: 8 MB at a million keys).
type ZipfTable struct {
	s     float64
	slots []zipfSlot
}

// zipfSlot is one slot of the alias table: a draw that lands on slot i
// gives key i when its coin is below keep (out of 2^32), and alias
// otherwise. A slot that always gives its own key has alias i.
type zipfSlot struct {
	keep  uint32
	alias int32
}

// NewZipfTable builds the table for n keys and exponent s.
func NewZipfTable(n int64, s float64) (*ZipfTable, error) {
	if n < 1 || n > MaxZipfKeys {
		return nil, fmt.Errorf("zipf: key space %d is not in [1, %d]", n, MaxZipfKeys)
	}
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: exponent %v is not a non-negative number", s)
	}
	q := zipfWeights(int(n), s)
	var sum float64
	for _, w := range q {
		sum += w
	}
	scale := float64(n) / sum
	for k := range q {
		q[k] *= scale // P(k)·n: a slot's worth is 1
	}
	return &ZipfTable{s: s, slots: aliasSlots(q)}, nil
}

// aliasSlots builds the alias table of worths q (P(k)·n), which it uses
// up. Keys worth less than a slot (small) fill the rest of theirs from a
// key worth more (the donor), taken in index order; a donor left worth
// less than a slot becomes small in turn: settled at once if the scan has
// passed it, else when the scan gets there. Both scans only move forward,
// so the build reads memory in order (Vose's stacks did not, and cost
// twice the time at a million keys).
func aliasSlots(q []float64) []zipfSlot {
	n := len(q)
	slots := make([]zipfSlot, n)
	for k := range slots {
		slots[k].alias = -1
	}
	nextDonor := func(k int) int {
		for k < n && q[k] < 1 {
			k++
		}
		return k
	}
	settle := func(k, donor int) {
		slots[k] = zipfSlot{keep: coin(q[k]), alias: int32(donor)}
		q[donor] -= 1 - q[k]
	}
	g := nextDonor(0)
	for s := 0; s < n && g < n; s++ {
		if q[s] >= 1 || slots[s].alias >= 0 {
			continue
		}
		settle(s, g)
		for g < n && q[g] < 1 {
			spent := g
			if g = nextDonor(g + 1); spent > s || g >= n {
				break
			}
			settle(spent, g)
		}
	}
	// What is left is worth a whole slot, but for rounding.
	for k := range slots {
		if slots[k].alias < 0 {
			slots[k] = zipfSlot{keep: math.MaxUint32, alias: int32(k)}
		}
	}
	return slots
}

// coin is the keep threshold of a slot worth q of its own key, rounded to
// the nearest so that the keys sharing slots lose nothing on average.
func coin(q float64) uint32 {
	return uint32(min(math.Round(max(q, 0)*(1<<32)), math.MaxUint32))
}

// Keys is the size of the key space.
func (t *ZipfTable) Keys() int64 { return int64(len(t.slots)) }

// Skew is the exponent s.
func (t *ZipfTable) Skew() float64 { return t.s }

// Key maps a uniform 64-bit r to a key: the high word of r·n picks a slot
// (uniformly, to within n/2^64), and the low word, uniform and
// independent of it, is the slot's coin.
func (t *ZipfTable) Key(r uint64) int64 {
	i, frac := bits.Mul64(r, uint64(len(t.slots)))
	sl := t.slots[i]
	if uint32(frac>>32) < sl.keep || sl.alias == int32(i) {
		return int64(i)
	}
	return int64(sl.alias)
}

// Prob is P(key = k) under the table. It reads the whole table (O(n)):
// for tests and diagnostics, not for draws.
func (t *ZipfTable) Prob(k int64) float64 {
	if k < 0 || k >= int64(len(t.slots)) {
		return 0
	}
	var p float64
	for i, sl := range t.slots {
		keep := float64(sl.keep) / (1 << 32)
		if sl.alias == int32(i) {
			keep = 1
		}
		if int64(i) == k {
			p += keep
		}
		if int64(sl.alias) == k && sl.alias != int32(i) {
			p += 1 - keep
		}
	}
	return p / float64(len(t.slots))
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
