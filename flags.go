package main

import (
	"flag"
	"slices"
	"strings"
)

// flagModes lists, for each flag but -run, the -run modes that use it. A
// flag given to a mode that does not use it is a usage error: ignoring it
// would let a mistaken command line run as if it were right (-threads 5
// given to kv, -alias to status). run-multi-client.sh passes -check to
// replicas, and sweep.sh -protocol to hosts (which checks the name).
var flagModes = map[string][]string{
	"config":      {"server", "client", "kv", "status", "hosts", "summary", "certs"},
	"alias":       {"server", "client", "kv"},
	"protocol":    {"server", "client", "kv", "hosts"},
	"log":         {"server", "client", "kv"},
	"loglevel":    {"server", "client", "kv"},
	"cpuprofile":  {"server", "client", "kv"},
	"metrics":     {"server", "client"},
	"tls":         {"server", "client", "kv", "status", "hosts"},
	"data":        {"server", "hosts"},
	"check":       {"server", "client"},
	"cost":        {"server"},
	"appliedlog":  {"server"},
	"threads":     {"client"},
	"results":     {"client", "summary"},
	"history":     {"client", "check"},
	"level":       {"kv"},
	"v":           {"kv"},
	"timeout":     {"kv", "status"},
	"interrupted": {"summary"},
	"out":         {"certs"},
}

// nameModes adds to each flag's help the modes that take it, so that -h
// says what the check in misplacedFlag enforces.
func nameModes(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if modes, ok := flagModes[f.Name]; ok {
			f.Usage += "\nfor -run " + strings.Join(modes, ", ")
		}
	})
}

// misplacedFlag returns the first flag of the command line (in name
// order) that mode does not use, and the modes that do; "" when none.
func misplacedFlag(fs *flag.FlagSet, mode string) (name string, modes []string) {
	fs.Visit(func(f *flag.Flag) {
		if m, ok := flagModes[f.Name]; ok && name == "" && !slices.Contains(m, mode) {
			name, modes = f.Name, m
		}
	})
	return name, modes
}
