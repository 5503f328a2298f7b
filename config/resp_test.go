package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replica i serves RESP on its own IP at respPort+i; without respPort it
// serves none.
func TestRESPAddresses(t *testing.T) {
	c := mustParse(t, withHosts("respPort: 6380"))
	for i, want := range []string{"127.0.0.1:6380", "127.0.0.2:6381", "127.0.0.3:6382"} {
		addr, ok := c.RESPAddr(i)
		require.True(t, ok)
		assert.Equal(t, want, addr)
	}
	_, ok := mustParse(t, withHosts()).RESPAddr(0)
	assert.False(t, ok, "off unless respPort is set")
}

func TestRESPSettingsRefused(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"respPort: 65534", "f.conf:7: respPort: 65534: replica 2 would serve RESP on port 65536, past 65535"},
		{"respPort: 0", "f.conf:7: respPort: 0 is out of range 1..65535"},
		{"respLevel: linearizable", `f.conf:7: respLevel: want strong or weak, not "linearizable"`},
		{"strongReads: lease", `f.conf:7: strongReads: want log or leader, not "lease"`},
		{"strongWrites: all", `f.conf:7: strongWrites: want witnesses or leader, not "all"`},
	} {
		_, err := parseString(t, withHosts(tc.line))
		assert.Equal(t, []string{tc.want}, issueStrings(t, err), tc.line)
	}
	// A RESP port may not be another process's address.
	_, err := parseString(t, hostsOnly("replica3 127.0.0.2:7000", "replica4 127.0.0.5", "---", "protocol: curpht", "respPort: 6999"))
	assert.Contains(t, issueStrings(t, err), `f.conf:11: respPort: 6999: replica "replica1" would serve RESP on 127.0.0.2:7000, the address of "replica3" (line 7)`)
}
