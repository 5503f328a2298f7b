package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shipped all-operations configuration parses and sets every share
// the benchmark has.
func TestAllOpsConfig(t *testing.T) {
	c, err := Load("../scripts/allops.conf")
	require.NoError(t, err)
	assert.Positive(t, c.Deletes)
	assert.Positive(t, c.RMW)
	assert.Positive(t, c.ScanRatio)
	assert.Positive(t, c.WeakWrites)
	assert.Positive(t, c.Writes)
	assert.True(t, c.CheckerMode)
}
