package kvcli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/client"
	"swiftpaxos/kvs"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		line string
		want command
	}{
		{"get 7", command{level: client.Strong, op: kvs.OpGet, key: 7}},
		{"weak get -3", command{level: client.Weak, op: kvs.OpGet, key: -3}},
		{"put 1   two  words ", command{level: client.Strong, op: kvs.OpPut, key: 1, value: kvs.Value("two  words ")}},
		{" strong\tput 9 x", command{level: client.Strong, op: kvs.OpPut, key: 9, value: kvs.Value("x")}},
		{"weak scan 10 1001", command{level: client.Weak, op: kvs.OpScan, key: 10, count: 1001}},
	} {
		words := strings.Fields(c.line)
		got, err := parse(words, c.line, client.Strong)
		require.NoError(t, err, c.line)
		c.want.text = strings.Join(words, " ")
		assert.Equal(t, c.want, got, c.line)
	}
	for line, want := range map[string]string{
		"":                        "no command",
		"weak":                    "no command",
		"get":                     "usage: get KEY",
		"get 1 2":                 "usage: get KEY",
		"put 1":                   "usage: put KEY VALUE",
		"scan 1":                  "usage: scan FROM COUNT",
		"scan 1 1002":             `COUNT "1002"`,
		"scan 1 x":                `COUNT "x"`,
		"get 0x10":                `key "0x10"`,
		"get 9223372036854775808": `key "9223372036854775808"`,
		"delete 1":                `unknown command "delete"`,
		"put 1 " + strings.Repeat("v", kvs.MaxValueLen): "values are shorter than 65536 bytes",
	} {
		_, err := parse(strings.Fields(line), line, client.Weak)
		assert.ErrorContains(t, err, want, "%.30q", line)
	}
}
