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
//	nemesis soak -p PROTOCOL [-d D] [-durable] [-kinds KINDS] [-every D] [-c CONF] [-o DIR] [-keep]
//	    runs run-multi-client.sh --check --nemesis one run after another,
//	    each with a fresh seed, until D (default 30m) has passed: one line
//	    per run (its faults per kind, the operations checked, its
//	    availability), a replay command per failing run (a failed check,
//	    a run that did not end cleanly), and the totals: faults per kind,
//	    the share of seconds with completed operations, the longest gap,
//	    per kind the median time until served again, and a last line
//	    "nemesis-soak: N runs, M operations checked in D: F failures".
//	    In memory (scripts/nemesis.conf) the kinds default to
//	    kill,restart,pause,partition,client; -durable
//	    (scripts/nemesis-durable.conf) adds wipe and crash-all. The run directories
//	    go under DIR (default results/nemesis-soak-TIME), a passing run's
//	    removed unless -keep. scripts/nemesis-soak.sh is its front end,
//	    run from the repository's root.
//
// A bad flag or plan is an error on standard error and exit status 2; a
// failed run or soak exit status 1.
package main
