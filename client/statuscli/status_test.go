package statuscli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"swiftpaxos/replica/wire"
)

// The FSYNCS and FSYNC columns: - - in memory, 0 - for a durable replica
// that has not synced yet, else the count and the mean.
func TestPrintFsyncColumns(t *testing.T) {
	answers := []Answer{
		{Alias: "replica0", Addr: "127.0.0.1:7070", Status: &wire.StatusReply{Leader: 0}},
		{Alias: "replica1", Addr: "127.0.0.2:7071", Status: &wire.StatusReply{Leader: 0, Durable: true}},
		{Alias: "replica2", Addr: "127.0.0.3:7072", Status: &wire.StatusReply{Leader: 0, Durable: true, Fsyncs: 12, FsyncMeanNs: 448_061}},
	}
	var out bytes.Buffer
	Print(&out, answers)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String())
	header := strings.Fields(lines[0])
	cells := func(row int) (string, string) {
		f := strings.Fields(lines[row])
		require.Len(t, f, len(header), lines[row])
		i := slices.Index(header, "FSYNCS")
		return f[i], f[i+1]
	}
	n, mean := cells(1)
	assert.Equal(t, []string{"-", "-"}, []string{n, mean}, "in memory")
	n, mean = cells(2)
	assert.Equal(t, []string{"0", "-"}, []string{n, mean}, "durable, no fsync yet")
	n, mean = cells(3)
	assert.Equal(t, []string{"12", "448µs"}, []string{n, mean})
}

func TestMeanFsync(t *testing.T) {
	assert.Equal(t, "1.23ms", meanFsync(1234567*time.Nanosecond))
	assert.Equal(t, "448µs", meanFsync(448061*time.Nanosecond))
	assert.Equal(t, "850ns", meanFsync(850*time.Nanosecond))
}

// A negative timeout is refused before asking anyone: it used to stand
// for the configuration's replyTimeout, as zero does.
func TestQueryRefusesNegativeTimeout(t *testing.T) {
	_, err := Query(t.Context(), nil, -5*time.Second)
	assert.EqualError(t, err, "timeout -5s is negative")
}
