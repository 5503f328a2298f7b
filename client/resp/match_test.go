package resp

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"swiftpaxos/kvs"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		yes, no []string
	}{
		{"*", []string{"", "a", "abc"}, nil},
		{"", []string{""}, []string{"a"}},
		{"abc", []string{"abc"}, []string{"ab", "abcd", "abd", "ABC"}},
		{"a*", []string{"a", "abc"}, []string{"", "ba"}},
		{"*c", []string{"c", "abc"}, []string{"ca", ""}},
		{"a*c", []string{"ac", "abc", "abbbc", "acc"}, []string{"ab", "abcd"}},
		{"a**c", []string{"ac", "abc"}, []string{"ab"}},
		{"*a*b*", []string{"ab", "xaxbx", "ba b"}, []string{"ba", "a"}},
		{"?", []string{"a", "\xff"}, []string{"", "ab"}},
		{"a?c", []string{"abc", "a?c"}, []string{"ac", "abbc"}},
		{"[abc]", []string{"a", "b", "c"}, []string{"d", "", "ab"}},
		{"[^a]", []string{"b", "z"}, []string{"a", ""}},
		{"[^a-c]x", []string{"dx"}, []string{"ax", "bx", "cx"}},
		{"[a-z]1", []string{"a1", "m1", "z1"}, []string{"A1", "01", "a2"}},
		{"[z-a]", []string{"m"}, []string{"A"}}, // a reversed range is the same range
		{"[a-]", []string{"a", "-"}, []string{"b"}},
		{`[\]]`, []string{"]"}, []string{`\`}},
		{`[\-a]`, []string{"-", "a"}, []string{`\`}},
		{"[]", nil, []string{"", "]", "a"}},
		{"[abc", []string{"a"}, []string{"d", "ab"}}, // unclosed: the class runs to the end
		{`\*`, []string{"*"}, []string{"a", `\*`}},
		{`a\?`, []string{"a?"}, []string{"ab"}},
		{`\[a]`, []string{"[a]"}, []string{"a"}},
		{`\\`, []string{`\`}, []string{`\\`}},
		{`ab\`, []string{`ab\`}, []string{"ab"}}, // a trailing backslash is itself
		{"user:*:[0-9]?", []string{"user:42:7x", "user::0a"}, []string{"user:42:x7", "user:42:7"}},
		{"\xff*", []string{"\xff", "\xff\x00"}, []string{"\xfe"}},
	} {
		for _, s := range tc.yes {
			assert.True(t, match([]byte(tc.pattern), []byte(s)), "%q should match %q", tc.pattern, s)
		}
		for _, s := range tc.no {
			assert.False(t, match([]byte(tc.pattern), []byte(s)), "%q should not match %q", tc.pattern, s)
		}
	}
}

// naiveMatch is the glob read the obvious way: at a *, every split of the
// rest. match must agree with it.
func naiveMatch(pattern, s []byte) bool {
	if len(pattern) == 0 {
		return len(s) == 0
	}
	if pattern[0] == '*' {
		for i := 0; i <= len(s); i++ {
			if naiveMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	}
	if len(s) == 0 {
		return false
	}
	ok, n := one(pattern, s[0])
	return ok && naiveMatch(pattern[n:], s[1:])
}

func TestMatchAgreesWithTheNaiveReading(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = `ab*?[]^-\`
	word := func(n int, from string) []byte {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = from[rng.IntN(len(from))]
		}
		return b
	}
	for range 200000 {
		p, s := word(8, alphabet), word(8, "ab-]")
		if got, want := match(p, s), naiveMatch(p, s); got != want {
			t.Fatalf("match(%q, %q) = %v, the naive reading says %v", p, s, got, want)
		}
	}
}

// A pattern with many stars against a long key that almost matches is
// answered in time proportional to their lengths, not exponential in the
// stars: a client must not be able to stall its connection with KEYS.
func TestMatchManyStarsIsFast(t *testing.T) {
	pattern := []byte(strings.Repeat("*a", 20) + "*b")
	s := []byte(strings.Repeat("a", 1024))
	done := make(chan bool, 1)
	go func() { done <- match(pattern, s) }()
	select {
	case ok := <-done:
		assert.False(t, ok)
	case <-time.After(5 * time.Second):
		t.Fatal("match of 21 stars against a 1 KiB key took more than 5 s")
	}
}

func TestPrefixRange(t *testing.T) {
	for _, tc := range []struct{ pattern, start, end string }{
		{"", "", ""},
		{"*", "", ""},
		{"?a", "", ""},
		{"[a]b", "", ""},
		{`\a`, "", ""},
		{"abc*", "abc", "abd"},
		{"abc", "abc", "abd"},
		{"a?c", "a", "b"},
		{"ab[cd]", "ab", "ac"},
		{`a\*`, "a", "b"},
		{"a\xff*", "a\xff", "b"},
		{"a\xff\xff", "a\xff\xff", "b"},
		{"a\xfe\xff*", "a\xfe\xff", "a\xff"},
		{"\xff*", "\xff", ""},
		{"\xff\xff?", "\xff\xff", ""},
	} {
		start, end := prefixRange([]byte(tc.pattern))
		assert.Equal(t, kvs.Key(tc.start), start, "start of %q", tc.pattern)
		assert.Equal(t, kvs.Key(tc.end), end, "end of %q", tc.pattern)
	}
}

// Every key a pattern matches lies in the pattern's range.
func TestPrefixRangeHoldsEveryMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func(n int, from string) []byte {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = from[rng.IntN(len(from))]
		}
		return b
	}
	for range 200000 {
		p, s := word(5, "ab\xfe\xff*?"), word(5, "ab\xfe\xff")
		if !match(p, s) {
			continue
		}
		start, end := prefixRange(p)
		k := kvs.Key(s)
		if k < start || end != "" && k >= end {
			t.Fatalf("%q matches %q but lies outside [%q, %q)", p, s, start, end)
		}
	}
}
