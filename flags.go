package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"strings"

	"swiftpaxos/config"
	"swiftpaxos/config/certs"
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
	"cluster":     {"server"},
	"threads":     {"client"},
	"results":     {"client", "summary"},
	"history":     {"client", "check"},
	"journal":     {"client"},
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

// aliasError says why alias cannot be the process that role runs: a
// server is a replica of cfg, a benchmark client or kv's -alias a client.
// An alias is a command-line word, so a wrong one is a usage error.
func aliasError(cfg *config.Config, role, alias, file string) string {
	var hosts []config.Host
	switch {
	case role == "server":
		hosts = cfg.Replicas
	case role == "client", role == "kv" && alias != "":
		hosts = cfg.Clients
	default:
		return ""
	}
	names := make([]string, len(hosts))
	for i, h := range hosts {
		if strings.EqualFold(h.Alias, alias) {
			return ""
		}
		names[i] = h.Alias
	}
	kind := "client"
	if role == "server" {
		kind = "replica"
	}
	return fmt.Sprintf("-alias %q is not a %s of %s (its %ss: %s)", alias, kind, file, kind, cmp.Or(strings.Join(names, ", "), "none"))
}

// tlsIdentity is the name of the certificate the process of role presents
// under TLS (config/certs): a replica's or client's alias, the generic
// client's for kv without -alias and for status; "" for a role that
// opens no connection.
func tlsIdentity(role, alias string) string {
	switch {
	case role == "server", role == "client", role == "kv" && alias != "":
		return strings.ToLower(alias)
	case role == "kv", role == "status":
		return certs.GenericClient
	}
	return ""
}
