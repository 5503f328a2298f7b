package check

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
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
// own session, so only the linearizability rule can object. Instants are
// drawn from a small range so that equal instants and overlapping windows
// are common; there are pending puts (read or not), weak puts read by
// strong gets, weak gets, and reads of NIL.
func randomKeyHistory(rng *rand.Rand) []Op {
	n := 3 + rng.IntN(6)
	var h []Op
	var values []string
	for i := range n {
		inv := rng.Int64N(20)
		o := op(fmt.Sprintf("s%d", i), 1, Strong, Put, 1, fmt.Sprintf("v%d", i), inv, inv+rng.Int64N(11))
		switch rng.IntN(7) {
		case 0:
			o.Level = Weak
		case 1:
			o = pending(o)
		case 2, 3:
			o.Kind = Get
		case 4:
			o.Kind, o.Level = Get, Weak
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

// porcupineLinearizable is porcupine's verdict on the operations and
// windows linOps selects, without a time limit.
func porcupineLinearizable(h []Op) bool {
	x := newHistory(asReads(h), newCollector(0))
	lops := x.linOps("1")
	return lops == nil || porcupine.CheckOperations(registerModel(x), x.porcupineOps(lops))
}

// The exact decision (cluster zones over the windows of linOps) agrees
// with porcupine's search over the same windows, and both agree with the
// exhaustive search from the definition, which shows the windows are
// neither stricter nor looser than LIN-RT and LIN-LEGAL.
func TestLinearizabilityMatchesPorcupineAndNaiveModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	illegal := 0
	const runs = 5000
	for range runs {
		h := randomKeyHistory(rng)
		want := naiveLinearizable(h)
		require.Equal(t, want, porcupineLinearizable(h), "porcupine, history %+v", h)
		r := Check(asReads(h), nil, Options{})
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
		require.Empty(t, r.Unknown)
	}
	t.Logf("%d of %d random histories were not linearizable", illegal, runs)
	require.Greater(t, illegal, runs/10)
	require.Less(t, illegal, runs*9/10)
}
