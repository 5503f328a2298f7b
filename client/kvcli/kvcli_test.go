package kvcli

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A negative timeout is refused before connecting, not taken for the
// configuration's replyTimeout, as zero is.
func TestNegativeTimeoutIsRefused(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), Options{Timeout: -time.Second, Out: &out, Err: &errb}, []string{"get", "1"})
	assert.Equal(t, Usage, code)
	assert.Empty(t, out.String())
	assert.Equal(t, "swiftpaxos: timeout -1s is negative\n", errb.String())
}
