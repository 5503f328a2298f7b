package nemesis

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func options(seed uint64, kinds string, n int, durable bool) Options {
	ks, err := ParseKinds(kinds)
	if err != nil {
		panic(err)
	}
	return Options{Seed: seed, Kinds: ks, Every: 3 * time.Second, Run: 60 * time.Second, Replicas: n, Clients: 3, Durable: durable}
}

func TestDrawIsDeterministic(t *testing.T) {
	o := options(7, "kill,restart,pause,partition,client", 3, false)
	a, err := Draw(o)
	require.NoError(t, err)
	b, err := Draw(o)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	o.Seed = 8
	c, err := Draw(o)
	require.NoError(t, err)
	assert.NotEqual(t, a.Faults, c.Faults, "another seed, another plan")
}

// impairedAt counts the replica faults that keep a replica from f at
// instant t: from their start to their heal plus Settle (for ever for a
// kill without restart), and whether a whole-cluster crash is under way.
func impairedAt(p *Plan, t time.Duration) (replicas int, crash bool) {
	for _, f := range p.Faults {
		end := forever
		if f.Heals() {
			end = f.At + f.For + Settle
		}
		if t < f.At || t >= end {
			continue
		}
		switch {
		case f.Kind == CrashAll:
			crash = true
		case f.Kind.impairsReplica():
			replicas++
		}
	}
	return replicas, crash
}

// TestDrawKeepsTheFaultModel checks over many seeds, sizes and kinds:
// never more than f replicas impaired at once, a whole-cluster crash
// alone, every fault within the run and healed by the horizon, starts in
// order, at least one client left, and only the kinds asked for.
func TestDrawKeepsTheFaultModel(t *testing.T) {
	for _, c := range []struct {
		kinds   string
		n       int
		durable bool
	}{
		{"kill,restart,pause,partition,client", 3, false},
		{"kill,restart,pause,partition,client", 5, false},
		{"kill,restart,pause,partition,crash-all,client", 3, true},
		{"kill,restart,wipe,pause,partition,crash-all,client", 5, true},
		{"wipe,pause", 3, true},
		{"kill,pause", 5, false},
		{"kill,client", 3, false},
	} {
		for seed := range uint64(200) {
			o := options(seed, c.kinds, c.n, c.durable)
			p, err := Draw(o)
			require.NoError(t, err)
			var last time.Duration
			clients := 0
			for _, f := range p.Faults {
				assert.GreaterOrEqual(t, f.At, last, "seed %d fault %d: starts in order", seed, f.ID)
				assert.GreaterOrEqual(t, f.At, lead)
				last = f.At
				assert.True(t, o.Kinds.Has(f.Kind), "seed %d: kind %s not asked for", seed, f.Kind)
				if f.Heals() {
					assert.LessOrEqual(t, f.At+f.For, o.Horizon(), "seed %d fault %d heals after the horizon", seed, f.ID)
					assert.GreaterOrEqual(t, f.For, minFault)
				} else {
					assert.Less(t, f.At, o.Horizon())
				}
				if f.Kind == Client {
					clients++
				}
				if f.Kind == Kill {
					assert.Equal(t, o.Kinds.Has(Restart), f.Restart)
				}
				if f.Kind == Wipe {
					assert.True(t, f.Restart && f.Heals(), "seed %d fault %d: a wiped replica comes back", seed, f.ID)
				}
				// The load is highest at a start: check there.
				r, crash := impairedAt(p, f.At)
				assert.LessOrEqual(t, r, o.F(), "seed %d fault %d: %d replicas impaired, f = %d", seed, f.ID, r, o.F())
				if crash {
					assert.Zero(t, r, "seed %d fault %d: a replica fault during a whole-cluster crash", seed, f.ID)
				}
			}
			assert.Less(t, clients, o.Clients, "seed %d: every client killed", seed)
		}
	}
}

// TestDrawMixes: over a long run every kind asked for turns up, faults
// overlap where f allows it, and partitions take every shape.
func TestDrawMixes(t *testing.T) {
	o := options(1, "kill,restart,wipe,pause,partition,crash-all,client", 5, true)
	o.Run = 30 * time.Minute
	p, err := Draw(o)
	require.NoError(t, err)
	counts := p.Counts()
	for _, k := range FaultKinds() {
		assert.Positive(t, counts[k], "no %s in half an hour", k)
	}
	assert.Zero(t, counts[Restart], "restart is no fault of its own")
	shapes := map[Shape]bool{}
	overlap := false
	for _, f := range p.Faults {
		shapes[f.Shape] = true
		if r, _ := impairedAt(p, f.At); r == 2 {
			overlap = true
		}
	}
	assert.True(t, shapes[Isolate] && shapes[LeaderCut] && shapes[OneWay] && shapes[Deaf], "shapes: %v", shapes)
	assert.True(t, overlap, "f = 2 and no two replica faults overlap in half an hour")
	n := len(p.Faults)
	assert.InDelta(t, float64(o.Horizon()-lead)/float64(o.Every), float64(n), float64(n)/3, "faults about every %v", o.Every)
}

// TestKillForGoodUsesUpF: a replica killed without restart stays
// impaired, so with f = 1 nothing else may touch a replica afterwards.
func TestKillForGoodUsesUpF(t *testing.T) {
	for seed := range uint64(50) {
		p, err := Draw(options(seed, "kill,pause", 3, false))
		require.NoError(t, err)
		for i, f := range p.Faults {
			if f.Kind == Kill {
				assert.False(t, f.Heals())
				assert.Len(t, p.Faults, i+1, "seed %d: a fault after a kill for good with f = 1", seed)
			}
		}
	}
}

func TestDrawRefusesBadOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no kinds", func(o *Options) { o.Kinds = nil }, "no fault kind given"},
		{"no runTime", func(o *Options) { o.Run = 0 }, "set runTime"},
		{"short run", func(o *Options) { o.Run = 5 * time.Second }, "too short"},
		{"tiny interval", func(o *Options) { o.Every = time.Millisecond }, "below 500ms"},
		{"f = 0", func(o *Options) { o.Replicas = 2 }, "tolerates no replica fault"},
		{"restart alone", func(o *Options) { o.Kinds = Kinds{Restart} }, "give it with kill"},
		{"crash-all in memory", func(o *Options) { o.Kinds = Kinds{CrashAll} }, "needs durable replicas"},
		{"wipe in memory", func(o *Options) { o.Kinds = Kinds{Wipe} }, "needs durable replicas"},
		{"crash-all with kill for good", func(o *Options) { o.Kinds, o.Durable = Kinds{Kill, CrashAll}, true }, "give restart"},
		{"one client", func(o *Options) { o.Kinds, o.Clients = Kinds{Client}, 1 }, "at least 2 client processes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := options(1, "kill,restart", 3, false)
			c.edit(&o)
			_, err := Draw(o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestParseKinds(t *testing.T) {
	ks, err := ParseKinds("restart,pause,kill")
	require.NoError(t, err)
	assert.Equal(t, Kinds{Kill, Restart, Pause}, ks, "in the canonical order")
	for in, want := range map[string]string{
		"":               "no fault kind given",
		"kill,kill":      "given twice",
		"kill,explode":   `unknown fault kind "explode" (known: kill, restart, wipe, pause, partition, crash-all, client)`,
		"kill,,pause":    `unknown fault kind ""`,
		"Kill":           `unknown fault kind "Kill"`,
		"crash-all,kill": "",
	} {
		_, err := ParseKinds(in)
		if want == "" {
			assert.NoError(t, err, in)
			continue
		}
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
	}
}

func TestWriteNamesTheReplay(t *testing.T) {
	p, err := Draw(options(42, "kill,restart,partition", 3, false))
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.Write(&b))
	out := b.String()
	assert.Contains(t, out, "# replay: --nemesis kill,restart,partition --nemesis-every 3s --nemesis-seed 42\n")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Len(t, lines, 3+len(p.Faults))
	for i, f := range p.Faults {
		assert.Contains(t, lines[3+i], f.String())
	}
}
