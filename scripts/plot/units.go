package main

import "strings"

// keyUnits says what the value of each configuration key measures (see
// the README's configuration reference), for the x axis of a sweep chart.
var keyUnits = map[string]string{
	"batchdelayus":      "µs",
	"networkdelay":      "ms, one-way",
	"pendings":          "operations in flight per thread",
	"maxdescroutines":   "concurrent encoders per replica",
	"clientthreads":     "sessions per client process",
	"clones":            "legacy thread count",
	"reqs":              "operations per thread",
	"weakratio":         "% of operations that are weak",
	"weakwrites":        "% of weak operations that write",
	"writes":            "% of strong operations that write",
	"conflicts":         "% of operations on the hot key",
	"keyspace":          "keys",
	"zipfskew":          "Zipf exponent",
	"scanratio":         "% of weak reads that scan",
	"scancount":         "keys per scan, at most",
	"commandsize":       "bytes per written value",
	"replytimeout":      "s",
	"heartbeatms":       "ms",
	"electiontimeoutms": "ms, min-max",
	"retryms":           "ms",
	"readwaitms":        "ms",
	"witnesssyncms":     "ms",
}

// keyLabel is the axis label of a swept key: the key and its unit.
func keyLabel(key string) string {
	if u, ok := keyUnits[strings.ToLower(key)]; ok {
		return key + " (" + u + ")"
	}
	return key
}
