# misses.awk: scripts/peers/run.sh's test of a weak workload D run phase
# whose only failures are reads that found no key. go-ycsb's redis
# binding counts a GET answered nil ("redis: nil") as a READ_ERROR; at
# the weak level such a read may miss another connection's newest insert,
# which that level allows (PROTOCOL.md 2.3, docs/PEERS.md Known limits).
# Prints the number of such reads when every failed operation is one and
# every operation was counted: READ_ERROR is the only *_ERROR summary
# line, every "operation err" line says "redis: nil", there are as many
# of them as READ_ERROR counts, and with the successful operations they
# make the phase's (awk -v n=SUCCESSFUL -v want=OPERATIONS). Prints "no"
# otherwise, and when nothing failed.

# The summary follows "Run finished"; lines of the same shape before it
# are go-ycsb's progress reports.
/^Run finished, takes / { on = 1 }

on && / - Takes\(s\): / && $1 ~ /_ERROR$/ {
	if ($1 == "READ_ERROR") {
		c = $0
		sub(/.*, Count: /, "", c)
		sub(/,.*/, "", c)
		readerrs += c
	} else
		other++
}

/^operation err: / {
	if ($0 == "operation err: redis: nil") nils++
	else other++
}

END {
	if (!on || other || !readerrs || nils != readerrs || n + readerrs != want) print "no"
	else print readerrs
}
