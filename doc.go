// Command swiftpaxos runs a replica or a benchmark client of the hybrid
// consistency CURP protocols, puts, gets and scans keys of a running
// cluster (-run kv), shows its replicas (-run status), or checks a
// recorded history. main.go only parses flags, picks the role and the
// protocol and wires signals, flags.go says which -run modes take each
// flag and checks -alias and -tls, and log.go builds the logger;
// everything else lives in the packages.
package main
