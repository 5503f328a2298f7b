// Package config parses and validates the deployment file every swiftpaxos
// process reads (multi-client.conf, PROTOCOL.md section 7) and the latency
// model used for delay injection (PROTOCOL.md 7.3).
//
// What it owns:
//
//   - The file format: sections (-- Replicas --, -- Clients --, -- Master --,
//     -- Proxy -- ... ---, -- Apply to <alias> --), host lines, key: value
//     lines, // comments. Keys and aliases are case-insensitive.
//   - The list of keys (keys.go) and their defaults (Default in params.go,
//     the only place defaults live).
//   - Derived facts the rest of the code must agree on: replica indices and
//     ports, quorum sizes (PROTOCOL.md 1.7), the client-to-replica binding of
//     the Proxy section, and the one-way delay between two processes.
//
// Invariants of a *Config returned by Load or Parse:
//
//   - There is an odd number n >= 3 of replicas and Replicas[i] is the
//     replica whose alias ends in i, for every i in [0, n).
//   - Aliases are unique and lower-case; IPs are valid and in canonical
//     form; no two listening processes share an ip:port.
//   - Every key was known, had a valid value and appeared at most once per
//     scope; Protocol is one of Protocols().
//   - Every Proxy binding names a known client and replica, and every
//     "-- Apply to" block names a known alias.
//
// Strictness: an unknown key, a bad value or a dangling reference is an
// error naming the file and line, never a silent default. All problems of
// a file are reported together in one *Errors. Settings that are accepted
// but have no effect in these protocols (fast: false, thrifty: true, ...)
// are recorded in Config.Warnings.
//
// Thread-safety: a Config and a Latency are immutable once returned, so
// any number of goroutines may read them. For returns a new Config that
// shares the host lists of its source; callers must not modify them.
package config
