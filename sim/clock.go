package sim

import (
	"math/rand/v2"
	"slices"
)

// clockRates draws each replica's clock rate, in per mille of the
// simulation's, within Options.ClockSkew, or takes Options.ClockRates; nil
// when clocks are not skewed. The draws come from a stream of their own,
// so that a seed's other draws stay those of a run without skew.
func clockRates(o Options) []int64 {
	if o.ClockRates != nil {
		return slices.Clone(o.ClockRates)
	}
	if o.ClockSkew == 0 {
		return nil
	}
	skew := rand.New(rand.NewPCG(o.Seed, 0xc10c))
	rates := make([]int64, o.N)
	for i := range rates {
		rates[i] = 1000 + int64(skew.IntN(2*o.ClockSkew+1)-o.ClockSkew)
	}
	return rates
}

// replicaClock is replica i's clock: the simulation's, at the replica's
// rate when clocks are skewed.
func (c *Cluster) replicaClock(i int) func() int64 {
	if c.rates == nil {
		return c.clock
	}
	rate := c.rates[i]
	return func() int64 { return c.now / 1000 * rate }
}
