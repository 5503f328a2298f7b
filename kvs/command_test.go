package kvs

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(k Key) Command            { return Command{Op: OpGet, Key: k} }
func put(k Key, v string) Command  { return Command{Op: OpPut, Key: k, Value: Value(v)} }
func scan(k Key, n int64) Command  { return Command{Op: OpScan, Key: k, Count: n} }
func noop() Command                { return Command{Op: OpNoop} }
func badOp(k Key, n int64) Command { return Command{Op: Op(9), Key: k, Count: n} }

func TestReadWriteClassification(t *testing.T) {
	tests := []struct {
		c             Command
		write, isRead bool
	}{
		{get(1), false, true},
		{put(1, "x"), true, false},
		{scan(1, 3), false, true},
		{noop(), false, false},
		{badOp(1, 0), false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.write, tt.c.IsWrite(), "IsWrite(%v)", tt.c)
		assert.Equal(t, tt.isRead, tt.c.IsRead(), "IsRead(%v)", tt.c)
	}
}

func TestKeyRange(t *testing.T) {
	tests := []struct {
		name   string
		c      Command
		lo, hi Key
	}{
		{"get", get(-7), -7, -7},
		{"put", put(42, "v"), 42, 42},
		{"scan", scan(10, 5), 10, 15},
		{"scan of one key", scan(10, 0), 10, 10},
		{"scan across zero", scan(-2, 4), -2, 2},
		{"scan saturates at MaxInt64", scan(math.MaxInt64-3, 10), math.MaxInt64 - 3, math.MaxInt64},
		{"scan ending exactly at MaxInt64", scan(math.MaxInt64-10, 10), math.MaxInt64 - 10, math.MaxInt64},
		{"scan at MaxInt64", scan(math.MaxInt64, MaxScanCount), math.MaxInt64, math.MaxInt64},
		{"scan from MinInt64", scan(math.MinInt64, 2), math.MinInt64, math.MinInt64 + 2},
		{"negative count clamps to 0", scan(5, -3), 5, 5},
		{"huge count clamps", scan(5, math.MaxInt64), 5, 5 + MaxScanCount},
		{"noop is empty", noop(), 1, 0},
		{"unknown op is empty", badOp(3, 3), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := tt.c.KeyRange()
			assert.Equal(t, tt.lo, lo, "lo")
			assert.Equal(t, tt.hi, hi, "hi")
			// Keys walks the same range, stopping at MaxInt64.
			var keys []Key
			for k := range tt.c.Keys() {
				keys = append(keys, k)
				if k == tt.lo && len(keys) > 1 {
					t.Fatal("Keys wrapped around")
				}
			}
			if tt.lo > tt.hi {
				assert.Empty(t, keys)
				return
			}
			assert.Len(t, keys, int(uint64(tt.hi-tt.lo)+1))
			assert.Equal(t, tt.lo, keys[0])
			assert.Equal(t, tt.hi, keys[len(keys)-1])
		})
	}
}

func TestConflicts(t *testing.T) {
	tests := []struct {
		name string
		a, b Command
		want bool
	}{
		{"put/put same key", put(1, "a"), put(1, "b"), true},
		{"put/put same key same value", put(1, "a"), put(1, "a"), true},
		{"put/put different keys", put(1, "a"), put(2, "a"), false},
		{"get/put same key", get(1), put(1, "a"), true},
		{"get/put different keys", get(1), put(2, "a"), false},
		{"get/get same key", get(1), get(1), false},
		{"scan/put inside", scan(10, 5), put(12, "a"), true},
		{"scan/put at lo", scan(10, 5), put(10, "a"), true},
		{"scan/put at hi", scan(10, 5), put(15, "a"), true},
		{"scan/put below", scan(10, 5), put(9, "a"), false},
		{"scan/put above", scan(10, 5), put(16, "a"), false},
		{"scan/get inside", scan(10, 5), get(12), false},
		{"scan/scan overlapping", scan(10, 5), scan(12, 5), false},
		{"scan/put at saturated end", scan(math.MaxInt64-1, 5), put(math.MaxInt64, "a"), true},
		{"scan/put just past clamped count", scan(0, MaxScanCount+50), put(MaxScanCount+1, "a"), false},
		{"noop/put", noop(), put(1, "a"), false},
		{"noop/scan", noop(), scan(0, 10), false},
		{"noop/noop", noop(), noop(), false},
		{"unknown/put", badOp(1, 0), put(1, "a"), false},
		{"empty put value still writes", put(1, ""), get(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.a.Conflicts(tt.b), "%v vs %v", tt.a, tt.b)
			assert.Equal(t, tt.want, tt.b.Conflicts(tt.a), "symmetric: %v vs %v", tt.b, tt.a)
		})
	}
}

func TestValidate(t *testing.T) {
	big := string(make([]byte, MaxValueLen))
	tests := []struct {
		name string
		c    Command
		ok   bool
	}{
		{"get", get(1), true},
		{"put", put(1, "v"), true},
		{"put empty value", put(1, ""), true},
		{"put longest value", put(1, big[:MaxValueLen-1]), true},
		{"put value too long", put(1, big), false},
		{"scan", scan(-5, 10), true},
		{"scan zero count", scan(1, 0), true},
		{"scan max count", scan(1, MaxScanCount), true},
		{"scan past MaxInt64", scan(math.MaxInt64, 3), true},
		{"scan count too big", scan(1, MaxScanCount+1), false},
		{"scan negative count", scan(1, -1), false},
		{"scan with value", Command{Op: OpScan, Key: 1, Count: 1, Value: Value("x")}, false},
		{"get with value", Command{Op: OpGet, Key: 1, Value: Value("x")}, false},
		{"get with count", Command{Op: OpGet, Key: 1, Count: 2}, false},
		{"put with count", Command{Op: OpPut, Key: 1, Count: 2, Value: Value("x")}, false},
		{"noop", noop(), true},
		{"noop with value", Command{Op: OpNoop, Value: Value("x")}, false},
		{"noop with count", Command{Op: OpNoop, Count: 1}, false},
		{"zero op", Command{}, false},
		{"unknown op", badOp(1, 0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidCommand), "error %q does not wrap ErrInvalidCommand", err)
		})
	}
}

func TestCommandString(t *testing.T) {
	tests := []struct {
		c    Command
		want string
	}{
		{get(-3), "GET(-3)"},
		{put(7, "abc"), "PUT(7, 3B)"},
		{scan(1, 10), "SCAN(1, 10)"},
		{noop(), "NOOP"},
		{badOp(2, 1), "Op(9)(2, 1, 0B)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.c.String())
		assert.Equal(t, tt.want, fmt.Sprint(tt.c), "fmt uses String")
	}
}
