package applog

import (
	"fmt"
	"math"
	"testing"

	"swiftpaxos/wire"
)

// TestSessionOf: a session is named by its client id in lower-case hex,
// as %x spells it, so that histories and applied logs agree.
func TestSessionOf(t *testing.T) {
	for _, id := range []wire.ClientID{0, 1, 0xab, 0xe32ad949e6b35983, math.MaxUint64} {
		if got, want := SessionOf(id), SessionID(fmt.Sprintf("%x", uint64(id))); got != want {
			t.Errorf("SessionOf(%d) = %q, want %q", uint64(id), got, want)
		}
	}
}
