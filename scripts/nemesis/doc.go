// Command nemesis draws and runs the fault schedule of
// run-multi-client.sh --nemesis (package scripts/internal/nemesis):
//
//	nemesis plan -config CONF -kinds KINDS -every D -seed S
//	    prints the plan: a header with the replay flags, one line per
//	    fault. The run's length is the configuration's runTime, the
//	    cluster's size and durability (dataDir) and the client processes
//	    are the configuration's.
//	nemesis run -config CONF -kinds KINDS -every D -seed S -start UNIX_MS [-tls DIR] [-status-timeout D]
//	    draws the same plan and carries it out from UNIX_MS on (when the
//	    clients started), asking the launcher to act through the line
//	    protocol of scripts/internal/nemesis (hands.go) on its standard
//	    output and input, and the replicas who leads and who is a member
//	    through their status answers. Its decisions go to standard error,
//	    and at the end a line with the faults started and skipped per kind.
//
// A bad flag or plan is an error on standard error and exit status 2; a
// failed run exit status 1.
package main
