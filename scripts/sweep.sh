#!/usr/bin/env bash
# Sweeps one configuration key: for every value and iteration it writes a
# copy of the configuration with "KEY: value" set, runs the deployment with
# run-multi-client.sh, and appends the run's numbers to DIR/sweep.csv. At
# the end it writes DIR/sweep-summary.csv (per value: median, min and max
# over the successful iterations) and prints the same as a table.
#
# Iterations are interleaved (all values once, then all values again, ...)
# so that a slow spell of a shared machine spreads over every value instead
# of biasing one. Every value is checked by the binary's own configuration
# parser before the first run, so a typo fails in a second, not after an
# hour. A failed run is recorded (ok=false) and the sweep goes on; the
# script then exits 1.
set -euo pipefail

usage() {
	cat <<USAGE
usage: scripts/sweep.sh KEY "V1 V2 ..." [-n ITER] [-c CONF] [-p PROTOCOL] [-o DIR] [-- RUN-ARGS]

Runs ./run-multi-client.sh once per value of KEY and iteration, and records
each run in DIR/sweep.csv:
  param,value,iteration,protocol,throughput_ops,strong_p50_ms,strong_p99_ms,
  weak_p50_ms,weak_p99_ms,fast_path,slow_path,cpu_us_per_op,fsyncs_per_op,
  errors,ok
where cpu_us_per_op is the CPU time of every process (replicas and clients)
per operation in microseconds, and fsyncs_per_op the replicas' log fsyncs
per operation (0 in memory mode), both from summary.json's cost, empty for
a run whose summary has none. Then DIR/sweep-summary.csv: per value, the
median, min and max of each measure over the runs with ok=true.

  KEY          a configuration key (see the README's table), e.g. batchDelayUs
  "V1 V2 ..."  the values, one argument, separated by blanks
  -n ITER      iterations per value (default 3)
  -c CONF      base configuration (default: multi-client.conf of the repository)
  -p PROTOCOL  protocol for every run, overriding CONF (curpht, curpho)
  -o DIR       output directory (default: results/sweep-KEY-<time>); it may
               hold an earlier sweep.csv, which is appended to (one from
               before cpu_us_per_op and fsyncs_per_op is first rewritten
               with these columns, empty in its rows). A run already in
               DIR with an ok row is not run again: the same command
               resumes a stopped sweep, a larger -n extends one (another
               configuration or other RUN-ARGS is refused); a run
               directory without an ok row (the run was stopped, or
               failed) is moved aside to DIR/KEY-VALUE-iI.stopped-<time>
               and run again
  -- RUN-ARGS  further arguments for run-multi-client.sh (e.g. -t 4, --check)
  -h           this help

Each run's directory is DIR/KEY-VALUE-iI (logs, summary.json, results-*.json,
the configuration it ran as sweep.conf, its run-multi-client.sh arguments
as run-args, the load average before it, and the checksum of the binary it
ran: run-multi-client.sh rebuilds the binary when
a source changes, and the sweep warns when that happens between runs).
Plot a sweep with
  go run ./scripts/plot -csv DIR/sweep.csv -out DIR
USAGE
}

die() {
	echo "sweep.sh: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")/.." && pwd)
conf="$here/multi-client.conf"
iters=3
protocol=""
out=""
run_args=()
pos=()
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	-n) [ $# -ge 2 ] || die "-n needs a number"; iters=$2; shift 2 ;;
	-c) [ $# -ge 2 ] || die "-c needs a file"; conf=$2; shift 2 ;;
	-p) [ $# -ge 2 ] || die "-p needs a protocol"; protocol=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
	--) shift; run_args=("$@"); break ;;
	-*) echo "sweep.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) pos+=("$1"); shift ;;
	esac
done
for a in "${run_args[@]}"; do
	case "$a" in -c | -o | -p) die "give $a to sweep.sh itself, not after --" ;; esac
done
[ ${#pos[@]} -eq 2 ] || { echo "sweep.sh: want a KEY and one quoted list of values, got ${#pos[@]} arguments" >&2; usage >&2; exit 2; }
key=${pos[0]}
read -r -a values <<<"${pos[1]}"
[[ "$key" =~ ^[A-Za-z][A-Za-z0-9_]*$ ]] || die "KEY \"$key\" is not a configuration key name"
[ ${#values[@]} -gt 0 ] || die "no values given for $key"
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number, not \"$iters\""
[ -f "$conf" ] || die "no configuration file $conf"
lkey=$(tr '[:upper:]' '[:lower:]' <<<"$key")
[ "$lkey" != protocol ] || [ -z "$protocol" ] || die "-p would override every value of the protocol sweep"
for v in "${values[@]}"; do
	case "$v" in //*) die "value \"$v\" would be read as a comment" ;; esac
done
if [ "$(printf '%s\n' "${values[@]}" | sort | uniq -d)" != "" ]; then
	die "a value is given twice: ${pos[1]}"
fi
if [ "$lkey" = latencyfile ]; then
	for i in "${!values[@]}"; do
		case "${values[$i]}" in /*) ;; *) values[$i]="$PWD/${values[$i]}" ;; esac
	done
fi
[ -n "$out" ] || out="results/sweep-$key${protocol:+-$protocol}-$(date +%Y%m%d-%H%M%S)"
csv="$out/sweep.csv"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sweep.XXXXXX")
child=""
cleanup() {
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "sweep.sh: interrupted; runs so far are in $csv" >&2; exit 130' INT TERM

# The binary (built as run-multi-client.sh builds it) parses every
# generated configuration; sweepstat keeps the CSVs.
bin="$here/bin/swiftpaxos"
if [ ! -x "$bin" ] || [ -n "$(find "$here" -name '*.go' -newer "$bin" -print -quit)" ] || [ "$here/go.mod" -nt "$bin" ]; then
	echo "building $bin" >&2
	(cd "$here" && go build -o "$bin" .)
fi
(cd "$here" && go build -o "$tmp/sweepstat" ./scripts/sweepstat)

# setkey VALUE WARN: CONF with KEY set to VALUE on stdout. The global line for
# KEY (outside any "-- Apply to" block, in any case, under either name of a
# key that has two) is replaced, or, when
# there is none, a "KEY: VALUE" line is appended after a "---" rule, which
# closes whatever section the file ends in. A relative latencyFile is made
# absolute, since the copy lives elsewhere.
confdir=$(cd "$(dirname "$conf")" && pwd)
# "check" and "checkerMode" are one setting under two names.
synonym=-
case $lkey in check) synonym=checkermode ;; checkermode) synonym=check ;; esac
setkey() {
	awk -v key="$lkey" -v syn="$synonym" -v name="$key" -v val="$1" -v dir="$confdir" -v warn="$2" '
		function first(s) { sub(/^[ \t]+/, "", s); sub(/[ \t].*$/, "", s); return s }
		{
			f = first($0)
			if (f ~ /^---+$/) { apply = 0 }
			else if (f ~ /^--/) { apply = (tolower($0) ~ /^[ \t]*--[ \t]*apply[ \t]+to[ \t]/) }
			else if (f !~ /^\/\// && index(f, ":") > 0) {
				k = tolower(substr(f, 1, index(f, ":") - 1))
				if (k == syn) { k = key }
				if (k == key && apply) { overridden = 1 }
				else if (k == key) { print name ": " val "    // set by scripts/sweep.sh"; done = 1; next }
				if (k == "latencyfile") {
					# "latencyFile: PATH" or "latencyFile:PATH"
					p = substr(f, index(f, ":") + 1)
					if (p == "") { rest = $0; sub(/^[ \t]*[^ \t]+/, "", rest); p = first(rest) }
					if (p != "" && p !~ /^\//) { print "latencyFile: " dir "/" p; next }
				}
			}
			print
		}
		END {
			if (!done) { print "---"; print name ": " val "    // added by scripts/sweep.sh" }
			if (overridden && warn) print "sweep.sh: warning: an \"-- Apply to\" block of the configuration sets " name " itself; its processes do not follow the sweep" > "/dev/stderr"
		}' "$conf"
}

# name VALUE: the value as file names hold it (run directories, the
# configurations). Two values with one name would share them, and a comma
# or a double quote would be quoted in sweep.csv, where a resumed sweep
# looks its runs up: both are refused.
name() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_'; }
declare -A named=()
for v in "${values[@]}"; do
	case $v in *,* | *'"'*) die "$key=$v: a value with a comma or a double quote is not supported" ;; esac
	n=$(name "$v")
	[ -z "${named[$n]:-}" ] || die "the values ${named[$n]} and $v would share the run directories $key-$n-iI: give each value once, written differently"
	named[$n]=$v
done

hostargs=()
[ -z "$protocol" ] || hostargs=(-protocol "$protocol")
bad=0
warn=1
for v in "${values[@]}"; do
	f="$tmp/$(name "$v").conf"
	setkey "$v" "$warn" >"$f"
	warn=0
	rc=0
	msg=$("$bin" -run hosts -config "$f" "${hostargs[@]}" 2>&1 >/dev/null) || rc=$?
	if [ "$rc" = 2 ]; then
		# Usage errors (exit 2): here only -protocol can cause one.
		die "-p $protocol: $(head -1 <<<"$msg" | sed 's/^swiftpaxos: //')"
	fi
	if [ "$rc" != 0 ]; then
		# The parser names FILE:LINE; the file is a temporary copy.
		msg=$(sed "s|^$f:[0-9]*: ||" <<<"$msg")
		if grep -q "unknown key" <<<"$msg"; then
			die "$key is not a configuration key (the parser says: $(head -1 <<<"$msg")); see the README's configuration reference"
		fi
		echo "sweep.sh: $key=$v is rejected: $(head -1 <<<"$msg")" >&2
		tail -n +2 <<<"$msg" | head -4 | sed 's/^/    /' >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || exit 2

mkdir -p "$out"
rundir() { echo "$out/$key-$(name "$1")-i$2"; }

# The protocol of a run that leaves no summary.json to say it.
run_protocol=$protocol
[ -n "$run_protocol" ] || run_protocol=$(awk '
	/^[ \t]*--[ \t]*[Aa][Pp][Pp][Ll][Yy][ \t]/ { exit }
	tolower($1) == "protocol:" { print tolower($2); exit }
	tolower($1) ~ /^protocol:./ { sub(/^[^:]*:/, "", $1); print tolower($1); exit }' "$conf")
# protocol_of VALUE: the protocol of the run of VALUE, as summary.json
# names it.
protocol_of() {
	if [ "$lkey" = protocol ]; then tr '[:upper:]' '[:lower:]' <<<"$1"; else echo "$run_protocol"; fi
}

rmc_args=()
[ -z "$protocol" ] || rmc_args+=(-p "$protocol")
rmc_args+=("${run_args[@]}")

# rows VALUE ITER [PROTOCOL [OK]]: how many rows of sweep.csv are of that
# run, of PROTOCOL and with ok=OK when given. Compared as strings (0.99
# is not 0.990), through the environment (awk -v would read backslashes).
rows() {
	[ -f "$out/sweep.csv" ] || { echo 0; return; }
	K=$key V=$1 I=$2 P=${3:-} OK=${4:-} awk -F, '
		$1 == ENVIRON["K"] "" && $2 == ENVIRON["V"] "" && $3 == ENVIRON["I"] "" &&
		(ENVIRON["P"] == "" || $4 == ENVIRON["P"] "") && (ENVIRON["OK"] == "" || $NF == ENVIRON["OK"] "") { n++ }
		END { print n + 0 }' "$out/sweep.csv"
}

# A run whose directory and ok row are both in DIR is done (an earlier
# sweep into DIR, or this one before it was stopped), if it ran the same
# configuration and launcher arguments: it is not run again, so the same
# command resumes a sweep and a larger -n extends it. A directory without
# an ok row (the run was stopped, or failed) is moved aside and run
# again. One whose rows are of another protocol is refused. Everything
# is checked before anything is moved.
aside=()
for v in "${values[@]}"; do
	p=$(protocol_of "$v")
	for ((i = 1; i <= iters; i++)); do
		d=$(rundir "$v" "$i")
		[ -e "$d" ] || continue
		if [ "$(rows "$v" "$i" "$p" true)" != 0 ]; then
			cmp -s "$d/sweep.conf" "$tmp/$(name "$v").conf" ||
				die "$d ran another configuration (its sweep.conf) than this sweep's: choose another -o"
			rec=$(cat "$d/run-args" 2>/dev/null) || rec="${rmc_args[*]}" # a run from before run-args
			[ "$rec" = "${rmc_args[*]}" ] ||
				die "$d ran with other run-multi-client.sh arguments (${rec:-none}; this sweep: ${rmc_args[*]:-none}): choose another -o"
			continue
		fi
		[ "$(rows "$v" "$i" "$p")" != 0 ] || [ "$(rows "$v" "$i")" = 0 ] || die "$d holds a run of another protocol: choose another -o"
		aside+=("$d")
	done
done
for d in "${aside[@]}"; do
	to="$d.stopped-$(date +%Y%m%d-%H%M%S)"
	mv "$d" "$to" || die "cannot move $d aside"
	echo "sweep.sh: $d has no ok row in sweep.csv (the run was stopped, or failed): moved to $to, and run again" >&2
done
total=$((iters * ${#values[@]}))
n=0
failed=0
skipped=0
# run-multi-client.sh rebuilds the binary whenever a source is newer, so
# edits during a sweep change the code it measures. Each run records the
# checksum of the binary it ran; a change is reported.
binsum() { cksum <"$bin" | cut -d' ' -f1; }
sum0=$(binsum)
builds=1
for ((i = 1; i <= iters; i++)); do
	for v in "${values[@]}"; do
		n=$((n + 1))
		f="$tmp/$(name "$v").conf"
		d=$(rundir "$v" "$i")
		if [ -e "$d" ]; then
			echo "run $n/$total: $key=$v iteration $i: done already ($d)" >&2
			skipped=$((skipped + 1))
			continue
		fi
		# The load before the run: on a shared machine it explains outliers.
		load=""
		[ ! -r /proc/loadavg ] || load=$(cut -d' ' -f1 /proc/loadavg)
		printf 'run %d/%d: %s=%s iteration %d ... ' "$n" "$total" "$key" "$v" "$i" >&2
		# In the background so that an interrupt reaches the trap at once;
		# run-multi-client.sh stops its own processes when it is stopped.
		"$here/run-multi-client.sh" -c "$f" -o "$d" "${rmc_args[@]}" >"$tmp/run.out" 2>&1 &
		child=$!
		status=0
		wait "$child" || status=$?
		child=""
		mkdir -p "$d"
		cp "$f" "$d/sweep.conf"
		echo "${rmc_args[*]}" >"$d/run-args"
		cp "$tmp/run.out" "$d/run-multi-client.out"
		[ -z "$load" ] || echo "$load" >"$d/loadavg-before"
		sum=$(binsum)
		echo "$sum" >"$d/binary-cksum"
		if [ "$sum" != "$sum0" ]; then
			echo >&2
			echo "sweep.sh: warning: bin/swiftpaxos was rebuilt from changed sources before this run; earlier runs measured other code" >&2
			sum0=$sum
			builds=$((builds + 1))
		fi
		p=$(protocol_of "$v")
		tput=$("$tmp/sweepstat" row -csv "$csv" -param "$key" -value "$v" -iteration "$i" \
			-protocol "$p" -status "$status" "$d")
		ok=$(tail -1 "$csv")
		if [ "$status" = 0 ] && [ "${ok##*,}" = true ]; then
			echo "$tput ops/s${load:+ (load average before: $load)}" >&2
		else
			failed=$((failed + 1))
			if [ "$tput" = - ]; then what="no summary"; else what="$tput ops/s"; fi
			# The launcher's own lines say why (a replica that did not
			# start, a failed check); the end of the output is replica
			# log lines that say nothing of it.
			if grep -q '^run-multi-client.sh: ' "$d/run-multi-client.out"; then
				echo "FAILED (exit $status, $what); $d/run-multi-client.out says:" >&2
				grep '^run-multi-client.sh: ' "$d/run-multi-client.out" | head -3 | sed 's/^/    /' >&2
			else
				echo "FAILED (exit $status, $what); $d/run-multi-client.out ends with:" >&2
				grep -v '^ *$' "$d/run-multi-client.out" | tail -3 | sed 's/^/    /' >&2
			fi
		fi
	done
done

"$tmp/sweepstat" summary "$csv" >"$out/sweep-summary.csv"
echo >&2
"$tmp/sweepstat" summary -md "$csv" >&2
ran=$((total - skipped))
echo "sweep.sh: $ran run$([ "$ran" = 1 ] || echo s), $failed failed$([ "$skipped" = 0 ] || echo ", $skipped done already"); results in $csv and $out/sweep-summary.csv" >&2
[ "$builds" = 1 ] || echo "sweep.sh: warning: the runs used $builds different builds of bin/swiftpaxos (see binary-cksum in each run directory)" >&2
[ "$failed" = 0 ] || exit 1
