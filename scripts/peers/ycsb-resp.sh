#!/usr/bin/env bash
# go-ycsb's redis binding against swiftpaxos's RESP front-end (issue 30's
# acceptance, issue 31's first step). Per protocol and connection level, a
# new cluster of 3 in-memory replicas (-cluster new) of multi-client.conf
# with respPort and respLevel set, then per workload (YCSB core workloads
# A, B, C, D and F by default, the property files shipped in go-ycsb's
# module):
#       go-ycsb load redis -P workloads/workloadX ...
#       go-ycsb run  redis -P workloads/workloadX ...
# with -p redis.addr=replica0's RESP address, redis.mode=single,
# redis.datatype=string, table=ycsbX (each workload on keys of its own),
# recordcount, operationcount, threadcount, dataintegrity=true (go-ycsb
# writes deterministic values and checks every value it reads, exiting 1
# at the first wrong one) and silence=false (go-ycsb prints each failed
# operation's error as "operation err: ..."). A phase passes when go-ycsb
# exits 0, prints its summary ("Run finished"), reports no operation
# whose name ends in _ERROR (go-ycsb counts failed operations apart, as
# READ_ERROR, UPDATE_ERROR, ...) and no "operation err", and counted the
# operations asked for (load: INSERT = recordcount; run: every operation
# once, a read-modify-write counted once although its read and update
# are also counted apart).
#
# What go-ycsb v1.0.3's redis binding sends, with redis.datatype=string:
# HELLO 3 and PING on each new connection (its go-redis,
# github.com/go-redis/redis/v9 v9.0.0-rc.1, goes on in RESP2 only when
# HELLO's error starts with "ERR unknown command"; on any other error
# every connection fails, and go-ycsb exits "create db redis failed
# ..."), then GET and plain SET only: a read is a GET, an insert a SET
# of the record as one JSON value, an update of some fields a GET then a
# SET, a read-modify-write a GET, a GET and a SET. No DEL (no core
# workload deletes), no FLUSHDB (dropdata is not set), and nothing for a
# scan. A GET that finds no key is a failed read ("redis: nil"): at the
# weak level, workload D's reads of the latest records, inserted by the
# other connections, may miss them (a weak read may miss another
# connection's recent writes) and count as READ_ERROR. Such a run phase,
# whose only failures are those reads (scripts/peers/misses.awk) and
# whose every operation was counted, gets the status "weak misses" and
# does not fail the script; a miss in another workload, whose reads ask
# for records loaded before, stays an error.
#
#   scripts/peers/ycsb-resp.sh [-p curpht|curpho|both] [-l strong|weak|both]
#                              [-w WORKLOADS] [-n RECORDS] [-N OPERATIONS]
#                              [-t THREADS] [-o DIR] [--keep]
#
# Defaults: both protocols, both levels (respLevel: the level every RESP
# connection starts at), -w abcdf (letters of the core workloads, run in
# the order given; e is accepted, but go-ycsb's redis binding answers
# every scan "scan is not supported" without sending a command, so its
# scans count as errors), -n 1000 records, -N 5000 operations, -t 16
# threads (go-redis connections), DIR results/ycsb-resp-<time> under the
# repository (it must be new or empty). DIR gets ycsb-resp.csv (protocol,
# level, workload, phase, seconds, ops_per_s, operations, errors, status,
# the per-operation counts), ycsb-resp.md (the table printed at the end)
# and ycsb.conf; everything else (replica logs, go-ycsb's outputs) is
# removed when every phase passed, kept with --keep or when one failed.
#
# ycsb.conf is multi-client.conf with the replicas on free ports of
# 127.0.0.1-3 (three consecutive ports from a random base in
# 20000-31999, below Linux's ephemeral range, checked unused with ss: no
# socket of any state on them) and respPort on three more; respLevel is
# added per cluster. The replicas run with GOMAXPROCS=1 unless GOMAXPROCS
# is set. It uses bin/swiftpaxos, built first when it is missing or older
# than go.mod or a Go source file ($BIN overrides it and skips the
# build), and bin/go-ycsb, built from this module when it is missing or
# older than scripts/peers/go.mod or go.sum:
#       cd scripts/peers && go build -o ../../bin/go-ycsb github.com/pingcap/go-ycsb/cmd/go-ycsb
# ($YCSB overrides it and skips the build; YCSB_WORKLOADS=DIR names the
# directory of the workload files, else go-ycsb's module's workloads/).
# Needs Go (and the module proxy for the first build) and ss. Every process it starts is stopped
# by its PID on exit. Exit status: 0 every phase passed (or had weak
# misses only), 1 a phase failed
# or reported an error, 2 usage or missing tools, 130 interrupted.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
peers="$here/scripts/peers"
protocols=(curpht curpho)
levels=(strong weak)
workloads=abcdf
records=1000
ops=5000
threads=16
out=""
keep=false
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "ycsb-resp.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-p) [ $# -ge 2 ] || die "-p needs a protocol (curpht, curpho or both)"
		case "$2" in curpht | curpho) protocols=("$2") ;; both) protocols=(curpht curpho) ;;
		*) die "unknown protocol '$2' (curpht, curpho or both)" ;; esac
		shift 2 ;;
	-l) [ $# -ge 2 ] || die "-l needs a level (strong, weak or both)"
		case "$2" in strong | weak) levels=("$2") ;; both) levels=(strong weak) ;;
		*) die "unknown level '$2' (strong, weak or both)" ;; esac
		shift 2 ;;
	-w) [ $# -ge 2 ] || die "-w needs workload letters (e.g. abcdf)"; workloads=$2; shift 2 ;;
	-n) [ $# -ge 2 ] || die "-n needs a number"; records=$2; shift 2 ;;
	-N) [ $# -ge 2 ] || die "-N needs a number"; ops=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || die "-t needs a number"; threads=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
	--keep) keep=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (-h for the usage)" ;;
	esac
done
[[ "$workloads" =~ ^[a-f]+$ ]] || die "-w needs letters of the core workloads a-f, not '$workloads'"
[[ "$records" =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number, not '$records'"
[[ "$ops" =~ ^[1-9][0-9]*$ ]] || die "-N needs a positive number, not '$ops'"
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "-t needs a positive number, not '$threads'"
[ "$threads" -le 1000 ] || die "-t $threads: at most 1000"
# go-ycsb gives each thread a share of the operations and refuses fewer
# operations than threads.
[ "$records" -ge "$threads" ] || die "-n $records is below -t $threads: go-ycsb needs at least one record per thread"
[ "$ops" -ge "$threads" ] || die "-N $ops is below -t $threads: go-ycsb needs at least one operation per thread"

command -v ss >/dev/null || die "ss (iproute2) is missing: it finds free ports"
if ! command -v go >/dev/null && { [ -z "${BIN:-}" ] || [ -z "${YCSB:-}" ] || [ -z "${YCSB_WORKLOADS:-}" ]; }; then
	die "go is missing: it builds bin/swiftpaxos and bin/go-ycsb and finds go-ycsb's workloads (or set BIN, YCSB and YCSB_WORKLOADS)"
fi

if [ -z "$out" ]; then
	out="$here/results/ycsb-resp-$(date +%Y%m%d-%H%M%S)"
fi
if [ -e "$out" ] && [ ! -d "$out" ]; then
	die "output directory $out is not a directory"
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	die "output directory $out is not empty"
fi
mkdir -p "$out"
dir=$(cd "$out" && pwd)

# The binaries: bin/swiftpaxos as run-multi-client.sh builds it (missing,
# or older than go.mod or a Go source file that is not a test, scripts/
# and results/ aside); bin/go-ycsb when missing or older than this
# module's go.mod or go.sum.
# shellcheck source=scripts/cluster-lib.sh
. "$here/scripts/cluster-lib.sh"
swiftpaxos_binary
go_ycsb "$workloads"

declare -A live # the processes started and not yet waited for, stopped by PID on exit
failed=false
reap() { wait "$1" 2>/dev/null || true; unset "live[$1]"; }
# stop PID...: TERM, at most 3 s, then KILL.
stop() {
	local p i any
	for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
	for i in $(seq 30); do
		any=false
		for p in "$@"; do kill -0 "$p" 2>/dev/null && any=true; done
		$any || break
		sleep 0.1
	done
	for p in "$@"; do kill -KILL "$p" 2>/dev/null || true; reap "$p"; done
}
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	trap '' INT TERM
	[ ${#live[@]} = 0 ] || stop "${!live[@]}"
	if ! $failed && ! $keep; then
		find "$dir" -mindepth 1 -maxdepth 1 ! -name ycsb-resp.csv ! -name ycsb-resp.md ! -name ycsb.conf -exec rm -rf {} +
	fi
	echo "files: $dir"
}
trap cleanup EXIT
trap 'echo "ycsb-resp.sh: interrupted" >&2; failed=true; exit 130' INT TERM

# A failure that makes the rest meaningless.
fatal() { echo "ycsb-resp.sh: $*" >&2; failed=true; exit 1; }

# Free ports: N consecutive ones on which no socket of any state is.
rbase="" respbase=""
free_ports 3 rbase
free_ports 3 respbase

# ycsb.conf: multi-client.conf, replicas on rbase.., respPort respbase.
conf="$dir/ycsb.conf"
awk -v base="$rbase" -v resp="$respbase" '
	function first(s) { sub(/^[ \t]+/, "", s); sub(/[ \t].*$/, "", s); return s }
	BEGIN { print "// scripts/peers/ycsb-resp.sh: multi-client.conf with the replicas on free ports and respPort set" }
	{
		f = first($0)
		if (f ~ /^---+$/) { section = "" }
		else if (f ~ /^--/) { section = tolower($0) }
		else if (section ~ /replicas/ && f != "" && f !~ /^\/\//) {
			split($2, a, ":")
			print $1 " " a[1] ":" base + n++ "    // port set by scripts/peers/ycsb-resp.sh"; next
		} else if (section == "" && tolower(f) ~ /^(respport|resplevel):/) { next }
		print
	}
	END {
		if (n != 3) { print "ycsb-resp.sh: multi-client.conf has " n " replicas, not 3" > "/dev/stderr"; exit 1 }
		print "respPort: " resp "    // set by scripts/peers/ycsb-resp.sh"
	}' "$here/multi-client.conf" >"$conf" || fatal "cannot derive ycsb.conf from multi-client.conf"
hosts=$("$bin" -run hosts -config "$conf" 2>"$dir/hosts.err") || { cat "$dir/hosts.err" >&2; fatal "ycsb.conf is rejected (see above)"; }
mapfile -t raddr < <(awk '$1 == "replica" { print $3 }' <<<"$hosts")
mapfile -t ralias < <(awk '$1 == "replica" { print $2 }' <<<"$hosts")
resp0=$(awk '$1 == "resp" { print $3; exit }' <<<"$hosts")
{ [ ${#raddr[@]} = 3 ] && [ -n "$resp0" ]; } || fatal "ycsb.conf does not list 3 replicas and a RESP address: $hosts"
gmp=${GOMAXPROCS:-1}

probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
# resp_set HOST PORT: one RESP SET, true when answered +OK (5 s).
resp_set() {
	(
		k="ycsb-resp:ready"
		exec 3<>"/dev/tcp/$1/$2" || exit 1
		# shellcheck disable=SC2016 # RESP's length prefixes, not expansions
		printf '*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\n1\r\n' "${#k}" "$k" >&3
		IFS= read -r -t 5 line <&3 || exit 1
		[ "$line" = $'+OK\r' ] || { echo "${line%$'\r'}"; exit 1; }
	) 2>/dev/null
}

# The cluster: PROTOCOL LEVEL LOGDIR.
declare -a cpid=()
cluster_start() {
	local i j a c="$3/ycsb-$2.conf" t0 r
	mkdir -p "$3"
	{ cat "$conf"; echo "respLevel: $2    // set by scripts/peers/ycsb-resp.sh"; } >"$c"
	cpid=()
	for i in 0 1 2; do
		a=${ralias[$i]}
		GOMAXPROCS=$gmp "$bin" -run server -config "$c" -alias "$a" -protocol "$1" -cluster new \
			-log "$3/$a.log" >"$3/$a.out" 2>"$3/$a.err" &
		cpid[i]=$!
		live[$!]=1
	done
	# Listening (5 s), members of the cluster (10 s): a replica that exits
	# fails the run at once.
	for i in 0 1 2; do
		for ((j = 0; ; j++)); do
			probe "${raddr[$i]%:*}" "${raddr[$i]##*:}" && grep -q -e 'cluster bootstrapped' -e 'rejoined as a full member' "$3/${ralias[$i]}.log" 2>/dev/null && break
			cluster_alive "$3"
			[ "$j" -lt 500 ] || fatal "${ralias[$i]} is not a member of the cluster 10 s after its start; see $3"
			sleep 0.02
		done
	done
	# A RESP SET answered OK by replica0 (30 s).
	t0=$SECONDS
	until r=$(resp_set "${resp0%:*}" "${resp0##*:}"); do
		cluster_alive "$3"
		[ $((SECONDS - t0)) -lt 30 ] || fatal "replica0's RESP port $resp0 does not answer SET with OK within 30 s (last: ${r:-no reply}); see $3"
		sleep 0.2
	done
}
cluster_alive() { # LOGDIR
	local i
	for i in 0 1 2; do
		kill -0 "${cpid[$i]}" 2>/dev/null && continue
		tail -n 5 "$1/${ralias[$i]}.err" "$1/${ralias[$i]}.log" >&2 2>/dev/null || true
		fatal "${ralias[$i]} exited (see $1)"
	done
}
cluster_stop() { stop "${cpid[@]}"; cpid=(); }

csv="$dir/ycsb-resp.csv"
echo "protocol,level,workload,phase,seconds,ops_per_s,operations,errors,status,counts" >"$csv"

# ycsb_phase PROTOCOL LEVEL WORKLOAD PHASE LOGDIR: one go-ycsb load or
# run, its row appended to the CSV. Its summary on stdout; false when it
# did not pass.
ycsb_phase() {
	local proto=$1 level=$2 w=$3 phase=$4 f="$5/$3-$4.out" rc=0 p want summary errs status
	"$ycsb" "$phase" redis -P "$wdir/workload$w" \
		-p redis.addr="$resp0" -p redis.mode=single -p redis.datatype=string \
		-p table="ycsb$w" -p recordcount="$records" -p operationcount="$ops" \
		-p threadcount="$threads" -p dataintegrity=true -p silence=false >"$f" 2>&1 &
	p=$!
	live[$p]=1
	wait "$p" || rc=$?
	unset "live[$p]"
	want=$records
	[ "$phase" = load ] || want=$ops
	# The summary (parse.awk, as run.sh reads it): seconds, operations,
	# errors, ten latencies this script does not keep, the counts.
	local secs=0 n=0 counts="" lat
	summary=$(awk -f "$peers/parse.awk" "$f")
	errs=0
	[ "$summary" = none ] || read -r secs n errs lat lat lat lat lat lat lat lat lat lat counts <<<"$summary"
	status=ok
	if [ "$rc" != 0 ]; then
		status="exit $rc"
	elif [ "$summary" = none ]; then
		status="no summary"
	elif [ "$errs" != 0 ]; then
		status="errors"
		if [ "$level" = weak ] && [ "$w" = d ] && [ "$phase" = run ] &&
			[ "$(awk -v n="$n" -v want="$want" -f "$peers/misses.awk" "$f")" = "$errs" ]; then
			status="weak misses"
		fi
	elif [ "$n" != "$want" ]; then
		status="counted $n of $want"
	fi
	local rate
	rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0) ? n / s : 0 }')
	echo "$proto,$level,$w,$phase,$secs,$rate,$n,$errs,$status,\"$counts\"" >>"$csv"
	printf '%-6s %-6s %s %-4s %6s ops/s  %5s ops in %ss, errors %s: %s\n' "$proto" "$level" "$w" "$phase" "$rate" "$n" "$secs" "$errs" "$status"
	if [ "$status" = "weak misses" ]; then
		echo "    $errs reads found no key (\"redis: nil\"): a weak read may miss another connection's newest insert (docs/PEERS.md, Known limits)" >&2
	elif [ "$status" != ok ]; then
		failed=true
		# What go-ycsb said about it: its fatal message, or the first
		# errors of failed operations, each distinct one once.
		{ grep -e '^operation err: ' -e 'failed' -e 'unexpected' -e 'panic' "$f" || tail -n 3 "$f"; } |
			awk '!seen[$0]++' | head -n 5 | sed 's/^/    /' >&2
		return 1
	fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "ycsb-resp: ${protocols[*]}, levels ${levels[*]}, workloads $workloads, $records records, $ops operations, $threads threads; replicas on ${raddr[*]}, RESP $resp0; GOMAXPROCS=$gmp for the replicas; load average $load0; files in $dir"
for proto in "${protocols[@]}"; do
	for level in "${levels[@]}"; do
		d="$dir/$proto-$level"
		cluster_start "$proto" "$level" "$d"
		for ((i = 0; i < ${#workloads}; i++)); do
			w=${workloads:i:1}
			if ycsb_phase "$proto" "$level" "$w" load "$d"; then
				ycsb_phase "$proto" "$level" "$w" run "$d" || true
			fi
			cluster_alive "$d"
		done
		cluster_stop
	done
done

{
	echo "### go-ycsb (redis binding, redis.datatype=string) against the RESP front-end"
	echo
	echo "$(date +%Y-%m-%d), $(nproc) cores, load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; a new 3-replica cluster of multi-client.conf per protocol and level (respLevel), go-ycsb $(cd "$peers" 2>/dev/null && go list -m -f '{{.Version}}' github.com/pingcap/go-ycsb 2>/dev/null || echo '(version unknown)') against replica0's RESP port; recordcount=$records, operationcount=$ops, threadcount=$threads. Operations per second of each phase (its operations over go-ycsb's \`Run finished, takes\` time); a phase that did not pass says why."
	echo
	printf '| protocol | level | phase |'
	for ((i = 0; i < ${#workloads}; i++)); do printf ' %s |' "${workloads:i:1}" | tr a-f A-F; done
	echo
	printf '|---|---|---|'
	for ((i = 0; i < ${#workloads}; i++)); do printf -- '---:|'; done
	echo
	awk -F, -v ws="$workloads" '
		NR == 1 { next }
		{ k = $1 SUBSEP $2 SUBSEP $4; if (!(k in seen)) { seen[k] = 1; rows[++nr] = k }
		  c = $6
		  if ($9 == "weak misses") c = $6 " (weak misses: " $8 " reads found no key)"
		  else if ($9 != "ok") { c = "FAIL: " $9; if ($8 > 0) c = c ", " $8 " errors"; if ($7 > 0) c = c ", " $6 " ops/s" }
		  cell[k, $3] = c }
		END {
			for (r = 1; r <= nr; r++) {
				split(rows[r], f, SUBSEP)
				line = "| " f[1] " | " f[2] " | " f[3] " |"
				for (i = 1; i <= length(ws); i++) {
					w = substr(ws, i, 1)
					line = line " " (((rows[r], w) in cell) ? cell[rows[r], w] : "—") " |"
				}
				print line
			}
		}' "$csv"
	echo
	awk -F, 'NR > 1 && $9 == "weak misses" { m++ } NR > 1 && $9 != "ok" && $9 != "weak misses" { n++ }
		END { printf "Phases that did not pass: %d.", n + 0; if (m) printf " Phases with weak misses (weak D reads that found no key: docs/PEERS.md, Known limits): %d.", m; print "" }' "$csv"
} >"$dir/ycsb-resp.md"
echo
cat "$dir/ycsb-resp.md"
if $failed; then
	echo "FAIL: a phase failed or reported errors (see $dir)"
	exit 1
fi
