package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveLinearizable decides LIN-RT + LIN-LEGAL (PROTOCOL.md 2.3) for one key
// by exhaustive search, straight from the definition: the order must hold
// every completed strong operation and every put a completed strong get
// read; it may hold other pending strong puts; strong a rt b forces a
// before b; weak puts are not ordered by real time at all.
func naiveLinearizable(h []Op) bool {
	read := map[string]bool{}
	for _, o := range h {
		if o.Kind == Get && o.Level == Strong && o.OK {
			read[o.Value] = true
		}
	}
	var ops []Op
	var optional []bool
	for _, o := range h {
		switch {
		case o.Level == Strong && o.OK:
			ops, optional = append(ops, o), append(optional, false)
		case o.Kind == Put && read[o.Value]:
			ops, optional = append(ops, o), append(optional, false)
		case o.Kind == Put && o.Level == Strong:
			ops, optional = append(ops, o), append(optional, true)
		}
	}
	resp := func(o Op) int64 {
		if o.Level == Strong && o.OK {
			return o.ReturnNS
		}
		return inf
	}
	var dfs func(placed uint, state string) bool
	dfs = func(placed uint, state string) bool {
		done := true
		for i := range ops {
			if placed&(1<<i) == 0 && !optional[i] {
				done = false
			}
		}
		if done {
			return true
		}
	next:
		for i, b := range ops {
			if placed&(1<<i) != 0 {
				continue
			}
			for j, a := range ops {
				if placed&(1<<j) == 0 && b.Level == Strong && a.Level == Strong && resp(a) < b.InvokeNS && !optional[j] {
					continue next
				}
			}
			if b.Kind == Get {
				if b.Value == state && dfs(placed|1<<i, state) {
					return true
				}
			} else if dfs(placed|1<<i, b.Value) {
				return true
			}
		}
		return false
	}
	return dfs(0, "")
}

// randomKeyHistory draws a small one-key history; each operation has its
// own session, so only the linearizability rule can object.
func randomKeyHistory(rng *rand.Rand) []Op {
	n := 3 + rng.IntN(5)
	var h []Op
	var values []string
	for i := range n {
		inv := rng.Int64N(20)
		o := op(fmt.Sprintf("s%d", i), 1, Strong, Put, 1, fmt.Sprintf("v%d", i), inv, inv+1+rng.Int64N(10))
		switch rng.IntN(6) {
		case 0:
			o.Level = Weak
		case 1:
			o = pending(o)
		case 2, 3:
			o.Kind = Get
		}
		if o.Kind == Put {
			values = append(values, o.Value)
		}
		h = append(h, o)
	}
	for i := range h {
		if h[i].Kind == Get {
			if k := rng.IntN(len(values) + 1); k < len(values) {
				h[i].Value = values[k]
			} else {
				h[i].Value = ""
			}
		}
	}
	return h
}

// The windows of lin.go are neither stricter nor looser than the
// definition: porcupine's verdict equals the exhaustive one.
func TestLinearizabilityMatchesNaiveModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	illegal := 0
	const runs = 3000
	for range runs {
		h := randomKeyHistory(rng)
		want := naiveLinearizable(h)
		r := Check(h, nil, Options{})
		got := true
		for _, v := range r.Violations {
			if v.Rule == RuleLinearizability {
				got = false
			}
		}
		if !want {
			illegal++
		}
		require.Equal(t, want, got, "history %+v\nreport:\n%s", h, r)
		// The stale-read and reads-going-back patterns, which are trusted
		// even when porcupine times out, only fire on illegal histories.
		x := newHistory(h, newCollector(0))
		if lops := x.linOps(1); lops != nil {
			msgs, _ := x.explainLin(lops)
			require.True(t, len(msgs) == 0 || !want, "history %+v\nexplanations: %q", h, msgs)
		}
	}
	t.Logf("%d of %d random histories were not linearizable", illegal, runs)
}
