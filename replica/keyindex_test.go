package replica

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"swiftpaxos/kvs"
)

// TestKeyIndexMatchesModel drives the index with a random log over a few
// keys (entries appended, applied oldest first, the whole index reset) and
// compares every answer with a plain list of the unapplied entries. The log
// holds GETs, PUTs, DELETEs, CASes, INCRs and SCANs over ranges of the keys
// (bounded or open at either end).
func TestKeyIndexMatchesModel(t *testing.T) {
	const keys = 5
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 1))
		ix := newKeyIndex()
		var unapplied []kvs.Slot
		cmds := map[kvs.Slot]kvs.Command{}
		next := kvs.Slot(1)
		randomScan := func() kvs.Command {
			c := kvs.Command{Op: kvs.OpScan, Limit: 1 + int64(rng.IntN(3))}
			lo := rng.IntN(keys + 1)
			hi := lo + rng.IntN(keys+1-lo)
			if rng.IntN(4) > 0 {
				c.Key = key(lo)
			}
			if rng.IntN(4) > 0 {
				c.End = key(hi)
			}
			return c
		}
		for step := range 2000 {
			switch r := rng.IntN(100); {
			case r < 55:
				k := key(rng.IntN(keys))
				var c kvs.Command
				switch rng.IntN(7) {
				case 0, 1:
					c = kvs.Command{Op: kvs.OpGet, Key: k}
				case 2, 3:
					c = kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value("v")}
				case 4:
					c = kvs.Command{Op: kvs.OpDelete, Key: k}
				case 5:
					c = kvs.Command{Op: kvs.OpCAS, Key: k, Expect: kvs.ExpectAbsent, Value: kvs.Value("v")}
				case 6:
					c = kvs.Command{Op: kvs.OpIncr, Key: k, Delta: 1}
				}
				if rng.IntN(6) == 0 {
					c = randomScan()
				}
				if rng.IntN(20) == 0 {
					c = kvs.Command{Op: kvs.OpNoop}
				}
				ix.add(next, c)
				cmds[next] = c
				unapplied = append(unapplied, next)
				next++
			case r < 99 && len(unapplied) > 0:
				s := unapplied[0]
				ix.applied(s, cmds[s])
				unapplied = unapplied[1:]
			case r == 99:
				ix.reset()
				for _, s := range unapplied {
					ix.add(s, cmds[s])
				}
			}
			commit := kvs.Slot(0)
			if len(unapplied) > 0 {
				commit = unapplied[rng.IntN(len(unapplied))]
			}
			writesOf := func(k kvs.Key) []kvs.Slot {
				var writes []kvs.Slot
				for _, s := range unapplied {
					if c := cmds[s]; c.IsWrite() && c.Key == k {
						writes = append(writes, s)
					}
				}
				return writes
			}
			aboveOf := func(writes []kvs.Slot) []kvs.Slot {
				var above []kvs.Slot
				for _, s := range slices.Backward(writes) {
					if s <= commit {
						break
					}
					above = append(above, s)
				}
				return above
			}
			for i := range keys {
				k := key(i)
				writes := writesOf(k)
				read := false
				for _, s := range unapplied {
					if c := cmds[s]; !c.IsWrite() && c.Covers(k) && s > commit {
						read = true
					}
				}
				require.Equal(t, writes, nonNil(ix.liveWrites(k)), "seed %d step %d key %s", seed, step, k)
				above := aboveOf(writes)
				require.Equal(t, above, ix.uncommittedWrites(kvs.Command{Op: kvs.OpGet, Key: k}, commit, nil, 0), "seed %d step %d key %s", seed, step, k)
				require.Equal(t, read || len(above) > 0, ix.touchedAbove(k, commit), "seed %d step %d key %s", seed, step, k)
			}
			// A SCAN's uncommitted writes: those of every key of its
			// range, in key order, each key's newest first.
			scan := randomScan()
			var want, ranged []kvs.Slot
			var rangedKeys []kvs.Key
			for i := range keys {
				if k := key(i); scan.Covers(k) {
					want = append(want, aboveOf(writesOf(k))...)
					if w := writesOf(k); len(w) > 0 {
						ranged = append(ranged, w...)
						rangedKeys = append(rangedKeys, k)
					}
				}
			}
			require.Equal(t, want, ix.uncommittedWrites(scan, commit, nil, 0), "seed %d step %d %v", seed, step, scan)
			require.Equal(t, want[:min(2, len(want))], nonNil(ix.uncommittedWrites(scan, commit, nil, 2)), "seed %d step %d %v, limit 2", seed, step, scan)
			var gotKeys []kvs.Key
			var got []kvs.Slot
			ix.rangeWrites(scan.Key, scan.End, func(k kvs.Key, live []kvs.Slot) bool {
				gotKeys = append(gotKeys, k)
				got = append(got, live...)
				return true
			})
			require.Equal(t, rangedKeys, gotKeys, "seed %d step %d %v", seed, step, scan)
			require.Equal(t, ranged, got, "seed %d step %d %v", seed, step, scan)
			require.Equal(t, countKeys(unapplied, cmds), len(ix.m), "seed %d step %d: a key without entries is kept", seed, step)
			require.Equal(t, countScans(unapplied, cmds), len(ix.scans), "seed %d step %d: an applied SCAN is kept", seed, step)
		}
	}
}

func nonNil(s []kvs.Slot) []kvs.Slot {
	if len(s) == 0 {
		return nil
	}
	return s
}

// countKeys counts the keys of the single-key entries among slots.
func countKeys(slots []kvs.Slot, cmds map[kvs.Slot]kvs.Command) int {
	keys := map[kvs.Key]bool{}
	for _, s := range slots {
		if c := cmds[s]; c.Op != kvs.OpScan && c.Op != kvs.OpNoop {
			keys[c.Key] = true
		}
	}
	return len(keys)
}

func countScans(slots []kvs.Slot, cmds map[kvs.Slot]kvs.Command) int {
	n := 0
	for _, s := range slots {
		if cmds[s].Op == kvs.OpScan {
			n++
		}
	}
	return n
}

// TestKeyIndexSteadyState: once warm, indexing and applying entries over
// ever new keys allocates nothing, and a key that always has a write
// pending keeps a bounded array.
func TestKeyIndexSteadyState(t *testing.T) {
	ix := newKeyIndex()
	slot, v := kvs.Slot(0), kvs.Value("v")
	step := func(k kvs.Key) {
		slot++
		c := kvs.Command{Op: kvs.OpPut, Key: k, Value: v}
		ix.add(slot, c)
		ix.applied(slot, c)
	}
	const runs = 1000
	keys := make([]kvs.Key, 100+runs+1)
	for i := range keys {
		keys[i] = key(i)
	}
	for _, k := range keys[:100] {
		step(k)
	}
	next := 100
	require.Zero(t, testing.AllocsPerRun(runs, func() {
		step(keys[next])
		next++
	}), "a new key's state is reused, not allocated")

	hot := key(0)
	put := kvs.Command{Op: kvs.OpPut, Key: hot, Value: kvs.Value("v")}
	ix.add(slot+1, put)
	for s := slot + 2; s < slot+10000; s++ {
		ix.add(s, put)
		ix.applied(s-1, put)
	}
	st := ix.m[hot]
	require.LessOrEqual(t, cap(st.writes), 8, "the array of a key with one write pending grows")
}
