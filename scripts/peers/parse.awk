# parse.awk: scripts/peers/run.sh's reader of one go-ycsb phase output.
# Prints "secs n errs p50/p99 x 5 counts", or "none" when the output has
# no summary. Summary lines look like
#   READ   - Takes(s): 1.2, Count: 2512, OPS: ..., 50th(us): 87, 90th(us): ...,
#            99th(us): 289, 99.9th(us): 410, 99.99th(us): 1203
# and "Run finished, takes 548.617213ms" (a Go duration) comes first.
# A field is found by its whole name after ", " or "- ": "99th(us)" is
# also the end of "99.99th(us)", which a bare match would take instead.

function field(s, name,   v) {
	v = s
	if (!sub(".*(, |- )" name ": ", "", v))
		return ""
	sub(/,.*/, "", v)
	return v
}

/^Run finished, takes / {
	on = 1; d = $4; secs = 0
	while (match(d, /^[0-9.]+(h|ms|us|µs|ns|m|s)/)) {
		u = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
		v = u + 0; sub(/^[0-9.]+/, "", u)
		secs += v * (u == "h" ? 3600 : u == "m" ? 60 : u == "s" ? 1 : u == "ms" ? 1e-3 : u == "ns" ? 1e-9 : 1e-6)
	}
	next
}

on && / - Takes\(s\): / {
	op = $1; c = field($0, "Count")
	counts = counts (counts ? " " : "") op "=" c
	if (op ~ /_ERROR$/) errs += c
	else if (op == "READ_MODIFY_WRITE") n -= c
	else if (op != "TOTAL") n += c
	p50[op] = field($0, "50th\\(us\\)"); p99[op] = field($0, "99th\\(us\\)")
}

/^operation err: / { errlines++ }

END {
	if (!on) { print "none"; exit }
	split("READ UPDATE INSERT SCAN READ_MODIFY_WRITE", ops, " ")
	lat = ""
	for (i = 1; i <= 5; i++) lat = lat " " ((ops[i] in p50) ? p50[ops[i]] : "-") " " ((ops[i] in p99) ? p99[ops[i]] : "-")
	printf "%.3f %d %d%s %s\n", secs, n, (errs > errlines ? errs : errlines) + 0, lat, counts
}
