package check

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journalOf writes what a client's journal holds for history h: every
// operation's pending record, then the completed ones, interleaved as a
// client writes them (each completion with the next invocation).
func journalOf(h []Op) string {
	var b []byte
	for i, o := range h {
		b = AppendOp(b, commandOf(o))
		if i > 0 {
			b = AppendOp(b, h[i-1])
		}
	}
	return string(b)
}

func TestReadJournalKeepsTheLastRecord(t *testing.T) {
	h := allKinds()
	j := journalOf(h)
	got, err := ReadJournal(strings.NewReader(j), "journal")
	require.NoError(t, err)
	require.Len(t, got, len(h))
	for i := range h[:len(h)-1] {
		assert.Equal(t, h[i], got[i], "record %d", i)
	}
	// The last operation's end was not written: it stays pending.
	assert.Equal(t, commandOf(h[len(h)-1]), got[len(h)-1])
	assert.False(t, got[len(h)-1].OK)
}

// TestReadJournalIgnoresATornTail: kill -9 may cut the last write short.
func TestReadJournalIgnoresATornTail(t *testing.T) {
	h := allKinds()
	j := journalOf(h)
	got, err := ReadJournal(strings.NewReader(j[:len(j)-40]), "journal")
	require.NoError(t, err)
	assert.Len(t, got, len(h))
	assert.False(t, got[len(h)-2].OK, "its completion was the torn line")
}

func TestReadJournalRefusesWhatNoClientWrites(t *testing.T) {
	h := allKinds()
	done, pending := string(AppendOp(nil, h[0])), string(AppendOp(nil, commandOf(h[0])))
	other := h[0]
	other.Value = "another"
	for name, c := range map[string]struct{ text, want string }{
		"completion first":  {done, "journal:1: s#1 completes before its pending record"},
		"third record":      {pending + done + done, "journal:3: s#1 has a third record"},
		"another command":   {pending + string(AppendOp(nil, other)), "journal:2: s#1 ends with another command"},
		"bad line mid-file": {pending + "{\"session\":\n" + done, "journal:2:"},
	} {
		_, err := ReadJournal(strings.NewReader(c.text), "journal")
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
	}
}
