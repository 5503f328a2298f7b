package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPlainTicks: labels carry no float noise (0.30000000000000004 on a
// latency axis) and no trailing zeros.
func TestPlainTicks(t *testing.T) {
	var labels []string
	for _, tk := range (plainTicks{}).Ticks(0.1, 0.7) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	assert.Equal(t, []string{"0.2", "0.4", "0.6"}, labels)
	for _, tk := range (plainTicks{}).Ticks(0, 150000) {
		if tk.Label != "" {
			assert.NotContains(t, tk.Label, ".", tk.Label)
			assert.NotContains(t, tk.Label, "e", tk.Label)
		}
	}
}
