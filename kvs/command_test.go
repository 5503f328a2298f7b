package kvs

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(k Key) Command           { return Command{Op: OpGet, Key: k} }
func put(k Key, v string) Command { return Command{Op: OpPut, Key: k, Value: Value(v)} }
func del(k Key) Command           { return Command{Op: OpDelete, Key: k} }
func incr(k Key, d int64) Command { return Command{Op: OpIncr, Key: k, Delta: d} }
func noop() Command               { return Command{Op: OpNoop} }

func scan(start, end Key, limit int64) Command {
	return Command{Op: OpScan, Key: start, End: end, Limit: limit}
}

// cas expects e (with operand exp for ExpectValue) and writes v.
func cas(k Key, e Expect, exp, v string) Command {
	c := Command{Op: OpCAS, Key: k, Expect: e, Value: Value(v)}
	if e == ExpectValue {
		c.ExpectValue = Value(exp)
	}
	return c
}

func TestReadWriteClassification(t *testing.T) {
	for _, tc := range []struct {
		c                   Command
		read, write, strong bool
	}{
		{get("a"), true, false, false},
		{scan("a", "b", 1), true, false, false},
		{put("a", ""), false, true, false},
		{del("a"), false, true, false},
		{cas("a", ExpectAbsent, "", "x"), false, true, true},
		{incr("a", 1), false, true, true},
		{noop(), false, false, false},
	} {
		assert.Equal(t, tc.read, tc.c.IsRead(), "%v", tc.c)
		assert.Equal(t, tc.write, tc.c.IsWrite(), "%v", tc.c)
		assert.Equal(t, tc.strong, tc.c.StrongOnly(), "%v", tc.c)
	}
}

func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		a, b Command
		want bool
	}{
		{get("a"), get("a"), false},
		{get("a"), put("a", "x"), true},
		{get("a"), put("b", "x"), false},
		{del("a"), del("a"), true},
		{incr("a", 1), get("a"), true},
		{cas("a", ExpectAbsent, "", "x"), incr("b", 1), false},
		{scan("a", "c", 1), put("b", "x"), true},
		{scan("a", "c", 1), put("c", "x"), false}, // the end is excluded
		{scan("a", "c", 1), put("a", "x"), true},  // the start is included
		{scan("b", "", 1), del("zzz"), true},      // no end
		{scan("", "b", 1), del("a"), true},        // from the first key
		{scan("a", "z", 1), scan("b", "c", 1), false},
		{noop(), put("a", "x"), false},
	} {
		assert.Equal(t, tc.want, tc.a.Conflicts(tc.b), "%v vs %v", tc.a, tc.b)
		assert.Equal(t, tc.want, tc.b.Conflicts(tc.a), "%v vs %v", tc.b, tc.a)
	}
}

func TestValidate(t *testing.T) {
	l := Limits{MaxKey: 8, MaxValue: 16}
	for _, tc := range []struct {
		c   Command
		err string // "" for valid
	}{
		{get("a"), ""},
		{get(""), "GET: an empty key"},
		{get("123456789"), "GET: a key of 9 bytes, over maxKeyBytes 8"},
		{put("a", ""), ""},
		{put("a", strings.Repeat("x", 17)), "PUT: a value of 17 bytes, over maxValueBytes 16"},
		{del("a"), ""},
		{Command{Op: OpDelete, Key: "a", Value: Value("x")}, "DELETE: a 1-byte value"},
		{scan("", "", 1), ""},
		{scan("b", "a", 1), `SCAN: the end "a" is before the start "b"`},
		{scan("a", "a", 1), ""},
		{scan("a", "", 0), "SCAN: limit 0 outside [1, 10000]"},
		{scan("a", "", MaxScanLimit+1), "SCAN: limit 10001 outside [1, 10000]"},
		{Command{Op: OpGet, Key: "a", Limit: 3}, "GET: limit 3"},
		{cas("a", ExpectValue, "old", "new"), ""},
		{Command{Op: OpCAS, Key: "a", Expect: ExpectVersion, ExpectVersion: 7, Delete: true}, ""},
		{Command{Op: OpCAS, Key: "a", Expect: ExpectAbsent, ExpectVersion: 7}, "CAS: an expected version"},
		{Command{Op: OpCAS, Key: "a", Expect: 9}, "CAS: unknown expectation Expect(9)"},
		{Command{Op: OpCAS, Key: "a", Expect: ExpectAbsent, Delete: true, Value: Value("x")}, "CAS: both a new value and delete"},
		{incr("a", -5), ""},
		{Command{Op: OpPut, Key: "a", Delta: 2}, "PUT: delta 2"},
		{noop(), ""},
		{Command{Op: OpNoop, Key: "a"}, "NOOP: a key"},
		{Command{Op: 9}, "unknown operation Op(9)"},
	} {
		err := tc.c.Validate(l)
		if tc.err == "" {
			assert.NoError(t, err, "%v", tc.c)
			continue
		}
		require.Error(t, err, "%v", tc.c)
		assert.True(t, errors.Is(err, ErrInvalidCommand))
		assert.Equal(t, "kvs: invalid command: "+tc.err, err.Error())
	}
}

func TestCommandString(t *testing.T) {
	assert.Equal(t, `GET("a")`, get("a").String())
	assert.Equal(t, `PUT("k\x00", 3B)`, put("k\x00", "abc").String())
	assert.Equal(t, `SCAN("a", "", 5)`, scan("a", "", 5).String())
	assert.Equal(t, `CAS("a", value 1B, 2B)`, cas("a", ExpectValue, "x", "yz").String())
	assert.Equal(t, `CAS("a", version 4, delete)`, Command{Op: OpCAS, Key: "a", Expect: ExpectVersion, ExpectVersion: 4, Delete: true}.String())
	assert.Equal(t, `INCR("n", -2)`, incr("n", -2).String())
	assert.Equal(t, "NOOP", noop().String())
}
