// Package kvcli is swiftpaxos -run kv: a command-line client that puts,
// gets and scans keys of a running cluster through one client.Session,
// either for one command given as arguments or for commands read line by
// line from standard input.
//
// Commands (words are separated by blanks):
//
//	get KEY                  print KEY's value
//	put KEY VALUE            write VALUE (the rest of the line) under KEY
//	del KEY                  delete KEY: "deleted", or "absent already"
//	scan START END LIMIT     print "KEY<TAB>VALUE" for each key of [START, END)
//	                         that holds a value, at most LIMIT (1..10000);
//	                         "" as START is the first key, as END past the last
//	incr KEY [DELTA]         add DELTA (default 1) to KEY's decimal integer
//	                         (absent counts as 0) and print the new value
//	cas KEY EXPECT UPDATE    compare-and-set: EXPECT is absent, value OLD or
//	                         version N; UPDATE is set NEW or delete; prints
//	                         "applied", or "not applied:" and the key's state
//
// Each may start with "strong" or "weak", overriding the default level for
// that command; incr and cas are strong only, and a weak one is refused.
// A weak del is acknowledged before it executes, so it prints "OK" and
// does not say whether the key existed. Keys are byte strings, values too,
// and an empty value is a value (put KEY ""), distinct from absent.
//
// A word that starts with a double quote is a Go string literal, up to
// its closing quote: "a b" holds a blank, "" is empty, and escapes such
// as \x00, \n, \" and \\ write any byte. Any other word is its own bytes.
// A PUT's value (and a CAS's NEW) is either one quoted word or the rest of
// the line as written, blanks included. Keys are printed the same way:
// as they are when plain printable text, else quoted. Given as arguments,
// each argument is one word (the shell quoted it already).
//
// Exit status: 0 when every command succeeded and found what it read, 1
// when a read found nothing, a CAS did not apply, an INCR met a value
// that is not an integer or overflowed, or an operation failed (no
// replica reachable, timeout, expired session), 2 for a usage error
// (unknown command, empty key, a key or value over maxKeyBytes or
// maxValueBytes, a SCAN whose end is before its start, a bad number, a
// weak cas or incr). Reading standard input, every line runs and a
// line longer than maxLine is a usage error of that line alone; a script's
// status is the worst of its lines, and each error names its line
// ("line 7: "). Lines a person types at a terminal (Interactive) get a
// prompt, errors without line numbers and status 0 at quit or the end of
// input, as in redis-cli. Values go to standard output, everything else
// (errors, and with Verbose the path, replica and latency of each
// operation) to standard error.
package kvcli
