package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChooseAxis(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		mode   string
		scale  string
		order  []string
		pos    map[string]float64
	}{
		{"linear", []string{"0", "150", "50"}, scaleAuto, scaleLinear, []string{"0", "50", "150"}, map[string]float64{"0": 0, "50": 50, "150": 150}},
		{"wide positive: log", []string{"1", "2", "500"}, scaleAuto, scaleLog, []string{"1", "2", "500"}, map[string]float64{"1": 1, "2": 2, "500": 500}},
		{"wide with zero: categories", []string{"0", "1", "500"}, scaleAuto, scaleCategory, []string{"0", "1", "500"}, map[string]float64{"0": 0, "1": 1, "500": 2}},
		{"words: categories in file order", []string{"curpht", "curpho"}, scaleAuto, scaleCategory, []string{"curpht", "curpho"}, map[string]float64{"curpht": 0, "curpho": 1}},
		{"forced categories are sorted numerically", []string{"30", "5", "15"}, scaleCategory, scaleCategory, []string{"5", "15", "30"}, map[string]float64{"5": 0, "15": 1, "30": 2}},
		{"forced linear", []string{"1", "1000"}, scaleLinear, scaleLinear, []string{"1", "1000"}, map[string]float64{"1": 1, "1000": 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := chooseAxis(tc.values, tc.mode)
			require.NoError(t, err)
			assert.Equal(t, tc.scale, a.Scale)
			assert.Equal(t, tc.order, a.Order)
			assert.Equal(t, tc.pos, a.Pos)
		})
	}
}

func TestChooseAxisErrors(t *testing.T) {
	for _, tc := range []struct {
		values []string
		mode   string
		want   string
	}{
		{[]string{"true", "false"}, scaleLinear, "needs numeric values"},
		{[]string{"0", "10"}, scaleLog, "cannot show the value 0"},
		{[]string{"1"}, "cubic", "unknown x scale"},
	} {
		_, err := chooseAxis(tc.values, tc.mode)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestKeyLabel(t *testing.T) {
	assert.Equal(t, "batchDelayUs (µs)", keyLabel("batchDelayUs"))
	assert.Equal(t, "PENDINGS (operations in flight per thread)", keyLabel("PENDINGS"), "keys are case-insensitive")
	assert.Equal(t, "protocol", keyLabel("protocol"))
}
