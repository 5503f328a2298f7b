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
// compares every answer with a plain list of the unapplied entries.
func TestKeyIndexMatchesModel(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 1))
		ix := newKeyIndex()
		var unapplied []kvs.Slot
		cmds := map[kvs.Slot]kvs.Command{}
		next := kvs.Slot(1)
		for step := range 2000 {
			switch r := rng.IntN(100); {
			case r < 55:
				c := kvs.Command{Op: kvs.OpGet, Key: kvs.Key(rng.IntN(4))}
				if rng.IntN(2) == 0 {
					c = kvs.Command{Op: kvs.OpPut, Key: c.Key, Value: kvs.Value("v")}
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
			for k := range kvs.Key(4) {
				var writes []kvs.Slot
				read := false
				for _, s := range unapplied {
					if c := cmds[s]; c.Key == k && c.IsWrite() {
						writes = append(writes, s)
					} else if c.Key == k && s > commit {
						read = true
					}
				}
				last, ok := ix.lastWrite(k)
				if len(writes) == 0 {
					require.False(t, ok, "seed %d step %d key %d", seed, step, k)
				} else {
					require.Equal(t, writes[len(writes)-1], last, "seed %d step %d key %d", seed, step, k)
				}
				var above []kvs.Slot
				for _, s := range slices.Backward(writes) {
					if s <= commit {
						break
					}
					above = append(above, s)
				}
				require.Equal(t, above, ix.uncommittedWrites(k, commit, nil), "seed %d step %d key %d", seed, step, k)
				require.Equal(t, read || len(above) > 0, ix.touchedAbove(k, commit), "seed %d step %d key %d", seed, step, k)
			}
			require.Len(t, ix.m, countKeys(unapplied, cmds), "seed %d step %d: a key without entries is kept", seed, step)
		}
	}
}

func countKeys(slots []kvs.Slot, cmds map[kvs.Slot]kvs.Command) int {
	keys := map[kvs.Key]bool{}
	for _, s := range slots {
		keys[cmds[s].Key] = true
	}
	return len(keys)
}

// TestKeyIndexSteadyState: once warm, indexing and applying entries over
// ever new keys allocates nothing, and a key that always has a write
// pending keeps a bounded array.
func TestKeyIndexSteadyState(t *testing.T) {
	ix := newKeyIndex()
	slot := kvs.Slot(0)
	step := func(k kvs.Key) {
		slot++
		c := kvs.Command{Op: kvs.OpPut, Key: k, Value: kvs.Value("v")}
		ix.add(slot, c)
		ix.applied(slot, c)
	}
	for k := range kvs.Key(100) {
		step(k)
	}
	key := kvs.Key(100)
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		key++
		step(key)
	}), "a new key's state is reused, not allocated")

	hot := kvs.Key(0)
	put := kvs.Command{Op: kvs.OpPut, Key: hot, Value: kvs.Value("v")}
	ix.add(slot+1, put)
	for s := slot + 2; s < slot+10000; s++ {
		ix.add(s, put)
		ix.applied(s-1, put)
	}
	require.LessOrEqual(t, cap(ix.m[hot].writes), 8, "the array of a key with one write pending grows")
}
