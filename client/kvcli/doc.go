// Package kvcli is swiftpaxos -run kv: a command-line client that puts,
// gets and scans keys of a running cluster through one client.Session,
// either for one command given as arguments or for commands read line by
// line from standard input.
//
// Commands (words are separated by blanks):
//
//	put KEY VALUE     write VALUE (the rest of the line) under KEY
//	get KEY           print KEY's value
//	scan FROM COUNT   print "KEY<TAB>VALUE" for each of the COUNT keys from
//	                  FROM on that holds a value
//
// Each may start with "strong" or "weak", overriding the default level for
// that command. Keys are 64-bit integers; an empty value is absent, so a
// key never written and one written with the empty value read the same.
//
// Exit status: 0 when every command succeeded and found what it read, 1
// when a read found nothing or an operation failed (no replica reachable,
// timeout, expired session), 2 for a usage error (unknown command, bad
// key, value too long). Reading standard input, every line runs and a
// line longer than maxLine is a usage error of that line alone; a script's
// status is the worst of its lines, and each error names its line
// ("line 7: "). Lines a person types at a terminal (Interactive) get a
// prompt, errors without line numbers and status 0 at quit or the end of
// input, as in redis-cli. Values go to standard output, everything else
// (errors, and with Verbose the path, replica and latency of each
// operation) to standard error.
package kvcli
