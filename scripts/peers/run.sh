#!/usr/bin/env bash
# Issue 31's comparison: YCSB core workloads through one client nobody here
# wrote (go-ycsb, pinned by scripts/peers/go.mod) against swiftpaxos's
# RESP front-end, etcd and Redis, on this machine, in one sitting.
#
#   scripts/peers/run.sh [-s SYSTEMS] [-w WORKLOADS] [-n RECORDS] [-N OPERATIONS]
#                        [-t "THREADS ..."] [-r ROUNDS] [-o DIR] [-d DISKDIR]
#                        [-R log|leader|lease] [-W witnesses|leader] [-c SERVER_CPUS/CLIENT_CPUS]
#
# The systems (-s, a comma-separated list, default all of them):
#   sp-curpht, sp-curpho            swiftpaxos, 3 replicas in memory, RESP
#                                   connections strong (respLevel: strong)
#   sp-curpht-weak, sp-curpho-weak  the same with respLevel: weak
#   sp-curpht-disk, sp-curpho-disk  strong, durable (-data DISKDIR/...)
#   etcd-tmpfs, etcd-disk           etcd, 3 members, data on /dev/shm or in
#                                   DISKDIR
#   redis                           redis-server --save '' --appendonly no
#   redis-aof                       redis-server --appendonly yes
#                                   --appendfsync always, its AOF in DISKDIR
# swiftpaxos's replicas get strongReads: leader and leaseReads: true (-R,
# default lease): a strong GET goes to the leader alone, which answers it
# from committed state at once while it holds a lease, a majority's
# promise not to vote for another leader, which rests on clocks running
# at about the same rate (docs/DECISIONS.md 55); -R leader drops the
# lease, and the leader then answers after a round of its followers, as
# etcd's linearizable read (ReadIndex) does (docs/DECISIONS.md 46); -R log
# sends it to every replica and logs it, CURP as published. The weak
# systems read at their replica either way.
# They also get strongWrites: leader (-W, default leader): a strong SET
# goes to the leader alone and is answered once committed, as etcd's Put
# is, rather than to every replica for CURP's fast path, which saves no
# round trip for a client next to the leader, as go-ycsb's front-end is,
# and costs a witness record at every follower (in durable mode, an
# fsync; docs/DECISIONS.md 48); -W witnesses is CURP as published.
# -c pins every server to SERVER_CPUS and go-ycsb to CLIENT_CPUS (taskset
# lists, e.g. -c 0/1: the servers share core 0, go-ycsb has core 1); by
# default the scheduler places them. Left to the scheduler, go-ycsb and
# the servers share every core (two on the machine docs/PEERS.md used),
# and go-ycsb's own CPU per operation varies from one start to the next
# (35 to 46 µs on C with 64 threads), and with it the throughput
# (docs/PEERS.md, "Where the processes run").
# Every server listens on loopback only (swiftpaxos's replicas on
# 127.0.0.1-3, as multi-client.conf places them), on free ports (a random
# base in 20000-31999, below Linux's ephemeral range, checked with ss: no
# socket of any state on them).
#
# go-ycsb drives swiftpaxos and Redis with its redis binding
# (redis.mode=single, redis.datatype=string: a read is a GET, an update a
# GET then a SET of the whole record as JSON) against replica0's RESP port
# or redis-server's port, and etcd with its etcd binding (etcd.endpoints
# = the three members' client URLs; a read is a linearizable Get, an
# update or insert a Put of the fields given). Every phase has the same
# properties: the workload's file from go-ycsb's module, recordcount,
# operationcount, threadcount, table=ycsbX (each workload on keys of its
# own), dataintegrity=true (go-ycsb checks every value it reads) and YCSB's
# default record (fieldcount 10, fieldlength 100).
#
# Workloads (-w, letters, default abcdf): e (scans) runs on etcd only; go-
# ycsb's redis binding answers every scan "scan is not supported" without
# sending anything, so E is not run against swiftpaxos or Redis. Nor does
# E measure etcd with go-ycsb v1.0.3: its etcd binding fails a scan whose
# response's Count differs from the scan's length, and etcd's Count is
# the number of keys from the start key to the end of the key space,
# whatever the limit ("unexpected number of result for key ..."), so
# nearly every scan counts as SCAN_ERROR.
#
# At the weak level, workload D's reads of the latest records, inserted
# by other connections, may miss them (a weak read may miss another
# connection's recent writes): go-ycsb counts each such "redis: nil" as a
# READ_ERROR, and the cell is not ok.
#
# Workload A's run phase records every operation's latency (go-ycsb's
# measurementtype=raw, measurement.output_file) for the latency CDF, in
# DIR/lat/ROUND-THREADS-SYSTEM-a.csv.gz (operation, start and latency in
# µs, one line per operation, TOTAL repeating each; gzipped). go-ycsb
# then prints no summary, so scripts/ycsbstat computes it from that file
# and appends it to the phase's output: the same lines and percentiles
# go-ycsb's default histogram would have printed (checked identical on a
# recorded run), so A's columns mean what the other workloads' do. The
# recording costs the run phase no throughput beyond the noise of a
# shared machine in a quick check (redis, 20000 operations, three runs
# each way): go-ycsb appends to a slice under the lock its histogram
# takes anyway, and writes the file after the "Run finished" time. On
# disk it takes about
# 0.1 MB per 10000 operations once gzipped. The other workloads keep
# go-ycsb's histogram.
#
# A cell is (round, threads, system, workload): go-ycsb load, then go-ycsb
# run, against a system started for the round and thread setting (new,
# empty: a new cluster, new data directories) and stopped after its
# workloads. The order is round by round, thread setting by thread
# setting, system by system, so that a slow spell of a shared machine
# spreads over every system instead of biasing one.
#
# DIR/peers.csv gets one row per cell: round, threads, system, workload,
# records, operations, seconds and ops_per_s of the run phase (successful
# operations over go-ycsb's "Run finished, takes" time), p50 and p99 in µs
# of READ, UPDATE, INSERT, SCAN and READ_MODIFY_WRITE (as go-ycsb's
# summary prints them; empty where the workload has none), errors (failed
# operations, go-ycsb's *_ERROR counts or its "operation err" lines,
# whichever is larger), status (ok, or why not: for swiftpaxos "leader
# elected" when a replica logged an election, so that replica0, which
# go-ycsb talks to, may no longer lead: that cell and every later one of
# the same start, whose logs they share; "weak misses" for a weak
# system's workload D whose only failures are reads that found no key,
# which the weak level allows: weak_misses below), server_cpu_us_per_op
# (utime+stime of the system's server processes from /proc/PID/stat over
# the run phase, per operation: clock ticks, so coarse on short runs),
# the load average before the cell, go-ycsb's per-operation counts, and
# the exact command lines of the servers and of the go-ycsb run. Then
# DIR/peers.md: per thread setting and workload, each system's median
# over its ok rounds (the throughput with its range), printed at the end.
# Then DIR/charts/, drawn by scripts/plot -peers DIR from every ok cell
# of peers.csv (a resumed comparison's earlier ones included):
# peers-throughput.png, a panel per thread setting with a group of bars
# per workload, one bar per system (the median throughput, a whisker
# from the slowest round to the fastest); peers-cdf-a.png and
# peers-tail-a.png, workload A's latency CDF and latency by percentile,
# a row per thread setting, a column per operation, a curve per system
# (its ok rounds pooled). docs/PEERS.md shows them.
#
# Resuming: DIR may hold an earlier peers.csv of the same -n, -N, -c, -R
# and -W (DIR/cores holds its -c, DIR/modes its -R and -W; others are
# refused, and so is a DIR without modes); a cell with an ok row there is not run again, so
# the same command resumes a stopped comparison, and a larger -r, more
# threads, systems or workloads extend one. A cell without an ok row (it
# failed, or was stopped) is run again and gets a new row; the table uses
# ok rows only. A cell with a weak-misses row counts as run: it is not
# run again, and the table says how many reads missed instead of a median.
#
# Defaults: -n 10000 records, -N 50000 operations, -t "16 64", -r 3
# rounds, DIR results/peers-<time> under the repository, DISKDIR
# DIR/data (the local disk the repository is on; tmpfs data always goes
# to /dev/shm). Each started system's logs are in DIR/logs/R-T-SYSTEM,
# removed once all its cells passed (kept when one had weak misses).
# swiftpaxos's replicas run with GOMAXPROCS=1 unless GOMAXPROCS is set
# (as scripts/peers/ycsb-resp.sh);
# etcd and Redis run as their packages ship them.
#
# Needs: etcd (Debian: etcd-server) when an etcd system is chosen,
# redis-server (Debian: redis-server) when a Redis one is; the script
# installs nothing and, when one is missing, prints the apt-get line and
# stops. Needs Go (module proxy for the first build) and ss. bin/swiftpaxos
# and bin/go-ycsb are built as scripts/peers/ycsb-resp.sh builds them
# (BIN, YCSB and YCSB_WORKLOADS override them); scripts/ycsbstat and
# scripts/plot are built into a temporary directory, removed on exit,
# before the first cell. Every process it starts it stops by PID on
# exit. Exit status: 0 every cell passed (or had weak misses only) and
# the charts were drawn (none when no cell is ok, as when every cell had
# weak misses), 1 a cell or the charts failed, 2 usage or missing tools,
# 130 interrupted.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
peers="$here/scripts/peers"
all_systems="sp-curpht sp-curpho sp-curpht-weak sp-curpho-weak sp-curpht-disk sp-curpho-disk etcd-tmpfs etcd-disk redis redis-aof"
read -r -a systems <<<"$all_systems"
workloads=abcdf
records=10000
ops=50000
threads_list=(16 64)
rounds=3
strong_reads=lease
strong_writes=leader
cores=""
out=""
diskdir=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "run.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-s) [ $# -ge 2 ] || die "-s needs systems (comma-separated; -h lists them)"
		IFS=, read -r -a systems <<<"$2"
		shift 2 ;;
	-w) [ $# -ge 2 ] || die "-w needs workload letters (e.g. abcdf)"; workloads=$2; shift 2 ;;
	-n) [ $# -ge 2 ] || die "-n needs a number"; records=$2; shift 2 ;;
	-N) [ $# -ge 2 ] || die "-N needs a number"; ops=$2; shift 2 ;;
	-t) [ $# -ge 2 ] || die "-t needs thread counts, e.g. \"16 64\""; read -r -a threads_list <<<"$2"; shift 2 ;;
	-r) [ $# -ge 2 ] || die "-r needs a number"; rounds=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
	-d) [ $# -ge 2 ] || die "-d needs a directory"; diskdir=$2; shift 2 ;;
	-R) [ $# -ge 2 ] || die "-R needs log, leader or lease"; strong_reads=$2; shift 2 ;;
	-W) [ $# -ge 2 ] || die "-W needs witnesses or leader"; strong_writes=$2; shift 2 ;;
	-c) [ $# -ge 2 ] || die "-c needs SERVER_CPUS/CLIENT_CPUS, e.g. 0/1"; cores=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (-h for the usage)" ;;
	esac
done
[ ${#systems[@]} -gt 0 ] || die "-s names no system"
declare -A seen_sys=() known_sys=()
for s in $all_systems; do known_sys[$s]=1; done
for s in "${systems[@]}"; do
	[ -n "$s" ] || die "-s names an empty system (a comma too many?)"
	[ -n "${known_sys[$s]:-}" ] || die "unknown system '$s' (-s takes a comma-separated list of: $all_systems)"
	[ -z "${seen_sys[$s]:-}" ] || die "-s names $s twice"
	seen_sys[$s]=1
done
[[ "$strong_reads" =~ ^(log|leader|lease)$ ]] || die "-R needs log, leader or lease, not '$strong_reads'"
[[ "$strong_writes" =~ ^(witnesses|leader)$ ]] || die "-W needs witnesses or leader, not '$strong_writes'"
pin_server=() pin_client=()
if [ -n "$cores" ]; then
	[[ "$cores" =~ ^[0-9][0-9,-]*/[0-9][0-9,-]*$ ]] || die "-c needs SERVER_CPUS/CLIENT_CPUS as taskset lists (e.g. 0/1 or 0-1/2), not '$cores'"
	command -v taskset >/dev/null || die "-c needs taskset (Debian: util-linux)"
	for l in "${cores%/*}" "${cores#*/}"; do
		taskset -c "$l" true 2>/dev/null || die "-c: taskset cannot run on CPUs $l ($(nproc) are available to this process)"
	done
	pin_server=(taskset -c "${cores%/*}")
	pin_client=(taskset -c "${cores#*/}")
fi
[[ "$workloads" =~ ^[a-f]+$ ]] || die "-w needs letters of the core workloads a-f, not '$workloads'"
[[ "$records" =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number, not '$records'"
[[ "$ops" =~ ^[1-9][0-9]*$ ]] || die "-N needs a positive number, not '$ops'"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "-r needs a positive number, not '$rounds'"
[ ${#threads_list[@]} -gt 0 ] || die "-t names no thread count"
for t in "${threads_list[@]}"; do
	[[ "$t" =~ ^[1-9][0-9]*$ ]] || die "-t needs positive numbers, not '$t'"
	[ "$t" -le 1000 ] || die "-t $t: at most 1000"
	# go-ycsb gives each thread a share of the records and operations.
	[ "$records" -ge "$t" ] || die "-n $records is below $t threads: go-ycsb needs at least one record per thread"
	[ "$ops" -ge "$t" ] || die "-N $ops is below $t threads: go-ycsb needs at least one operation per thread"
done

# The packages: the apt-get line for every one missing, then stop.
want_etcd=false want_redis=false
for s in "${systems[@]}"; do
	case "$s" in etcd-*) want_etcd=true ;; redis*) want_redis=true ;; esac
done
missing=()
if $want_etcd && ! command -v etcd >/dev/null; then missing+=(etcd-server); fi
if $want_redis && ! command -v redis-server >/dev/null; then missing+=(redis-server); fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "run.sh: missing ${missing[*]}; install with:" >&2
	echo "  apt-get install ${missing[*]}" >&2
	exit 2
fi
# Their full paths, so that the CSV's command lines say which binary ran.
etcd=$(command -v etcd || true)
redis=$(command -v redis-server || true)
command -v ss >/dev/null || die "ss (iproute2) is missing: it finds free ports"
command -v go >/dev/null || die "go is missing: it builds scripts/ycsbstat and scripts/plot, bin/swiftpaxos and bin/go-ycsb (unless BIN and YCSB name them), and finds go-ycsb's workloads"

[ -n "$out" ] || out="$here/results/peers-$(date +%Y%m%d-%H%M%S)"
if [ -e "$out" ] && [ ! -d "$out" ]; then die "output $out is not a directory"; fi
mkdir -p "$out"
dir=$(cd "$out" && pwd)
csv="$dir/peers.csv"
modes="-R $strong_reads -W $strong_writes"
header="round,threads,system,workload,records,operations,seconds,ops_per_s,read_p50_us,read_p99_us,update_p50_us,update_p99_us,insert_p50_us,insert_p99_us,scan_p50_us,scan_p99_us,rmw_p50_us,rmw_p99_us,errors,status,server_cpu_us_per_op,load_avg,counts,server_cmd,ycsb_cmd"
if [ -f "$csv" ]; then
	[ "$(head -n 1 "$csv")" = "$header" ] || die "$csv has another header: not a comparison of this script"
	# Another record or operation count would mix incomparable cells.
	other=$(awk -F, -v n="$records" -v N="$ops" 'NR > 1 && ($5 != n || $6 != N) { print $5 " records, " $6 " operations"; exit }' "$csv")
	[ -z "$other" ] || die "$csv holds cells of $other: run with the same -n and -N, or another -o"
	# So would cells with their processes placed otherwise: DIR/cores holds
	# the -c of its cells, none without.
	was=$(cat "$dir/cores" 2>/dev/null || echo none)
	if [ "$was" != "${cores:-none}" ]; then
		[ "$was" = none ] && was="without -c" || was="with -c $was"
		die "$csv holds cells run $was: run the same way, or with another -o"
	fi
	# And swiftpaxos's cells with reads or writes served otherwise:
	# DIR/modes holds the -R and -W of its cells.
	[ -f "$dir/modes" ] || die "$csv holds cells of a run.sh that did not record its -R and -W: use another -o"
	was=$(cat "$dir/modes")
	[ "$was" = "$modes" ] || die "$csv holds cells run with $was: run with the same -R and -W, or with another -o"
else
	echo "$header" >"$csv"
	echo "${cores:-none}" >"$dir/cores"
	echo "$modes" >"$dir/modes"
fi
[ -n "$diskdir" ] || diskdir="$dir/data"
mkdir -p "$diskdir"
diskdir=$(cd "$diskdir" && pwd)
if [[ " ${systems[*]} " == *" etcd-tmpfs "* ]] && { [ ! -d /dev/shm ] || [ ! -w /dev/shm ]; }; then
	die "/dev/shm is not a writable directory (etcd-tmpfs keeps its data there)"
fi

# The binaries, as scripts/peers/ycsb-resp.sh builds them.
# shellcheck source=scripts/cluster-lib.sh
. "$here/scripts/cluster-lib.sh"
swiftpaxos_binary
go_ycsb "$workloads"
ycsb_version=$(cd "$peers" 2>/dev/null && go list -m -f '{{.Version}}' github.com/pingcap/go-ycsb 2>/dev/null || echo unknown)
tck=$(getconf CLK_TCK)
gmp=${GOMAXPROCS:-1}

declare -A live=() # processes started and not yet waited for, stopped by PID on exit
datadirs=()        # data directories of the running system, removed when it stops
failed=false
reap() { wait "$1" 2>/dev/null || true; unset "live[$1]"; }
# stop PID...: TERM, at most 5 s, then KILL.
stop() {
	local p i any
	for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
	for i in $(seq 50); do
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
	[ ${#datadirs[@]} = 0 ] || rm -rf "${datadirs[@]}"
	rmdir "$diskdir" 2>/dev/null || true
	[ -z "${tools:-}" ] || rm -rf "$tools"
	echo "files: $dir"
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; failed=true; exit 130' INT TERM
fatal() { echo "run.sh: $*" >&2; failed=true; exit 1; }

# scripts/ycsbstat (the summary of a phase recorded raw) and scripts/plot
# (the charts), built before the first cell so that a broken build stops
# the comparison at its start rather than at its end.
tools=$(mktemp -d "${TMPDIR:-/tmp}/peers-tools.XXXXXX")
(cd "$here" && go build -o "$tools/ycsbstat" ./scripts/ycsbstat && go build -o "$tools/plot" ./scripts/plot) ||
	fatal "cannot build scripts/ycsbstat and scripts/plot (see above)"
mkdir -p "$dir/lat"


probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
# resp_ok HOST PORT CMD...: one RESP command (5 s), true when answered
# with a simple string (+OK, +PONG).
resp_ok() {
	(
		h=$1 p=$2
		shift 2
		exec 3<>"/dev/tcp/$h/$p" || exit 1
		msg="*$#"$'\r\n'
		for a in "$@"; do msg+="\$${#a}"$'\r\n'"$a"$'\r\n'; done
		printf '%s' "$msg" >&3
		IFS= read -r -t 5 line <&3 || exit 1
		[[ "$line" == +* ]] || { echo "${line%$'\r'}"; exit 1; }
	) 2>/dev/null
}
# etcd_healthy HOST PORT: its /health says true (a leader is known).
etcd_healthy() {
	(
		exec 3<>"/dev/tcp/$1/$2" || exit 1
		printf 'GET /health HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" >&3
		timeout 5 cat <&3 | grep -q '"health":"true"'
	) 2>/dev/null
}
# cmdline ARG...: the command as one shell-quoted line.
cmdline() { local s; printf -v s '%q ' "$@"; echo "${s% }"; }
csvq() { local s=${1//\"/\"\"}; echo "\"$s\""; }

# The running system: its server PIDs, the go-ycsb binding and its
# properties, its command lines, a liveness check.
spids=()
scmds=()
binding=""
bprops=()
slog=""

# start_server LOGNAME [VAR=VALUE...] -- CMD...: a server in the background,
# its PID in spids and its command line in scmds.
start_server() {
	local name=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env ${envs[@]+"${envs[@]}"} ${pin_server[@]+"${pin_server[@]}"} "$@" >"$slog/$name.out" 2>"$slog/$name.err" &
	spids+=($!)
	live[$!]=1
	scmds+=("$(cmdline ${envs[@]+"${envs[@]}"} ${pin_server[@]+"${pin_server[@]}"} "$@")")
}
# env and taskset exec the server, so $! is the server's own PID, whose
# /proc stat is what the CPU column reads.
system_alive() {
	local i
	for i in "${!spids[@]}"; do
		kill -0 "${spids[$i]}" 2>/dev/null && continue
		tail -n 5 "$slog"/*.err >&2 2>/dev/null || true
		fatal "a server of the system exited (see $slog)"
	done
}
system_stop() {
	[ ${#spids[@]} = 0 ] || stop "${spids[@]}"
	[ ${#datadirs[@]} = 0 ] || rm -rf "${datadirs[@]}"
	spids=() scmds=() datadirs=()
}

# swiftpaxos PROTOCOL LEVEL DATA(none|disk): a new cluster of 3 replicas
# of multi-client.conf with respPort and respLevel set.
start_swiftpaxos() {
	local proto=$1 level=$2 data=$3 rbase respbase conf="$slog/ycsb.conf" hosts i j t0 r a
	free_ports 3 rbase
	free_ports 3 respbase
	derive_conf "$conf" scripts/peers/run.sh "$rbase" respPort="$respbase" respLevel="$level" strongReads="${strong_reads/lease/leader}" leaseReads="$([ "$strong_reads" = lease ] && echo true)" strongWrites="$strong_writes" dataDir= ||
		fatal "cannot derive ycsb.conf from multi-client.conf"
	hosts=$("$bin" -run hosts -config "$conf" 2>"$slog/hosts.err") || { cat "$slog/hosts.err" >&2; fatal "$conf is rejected (see above)"; }
	local raddr ralias resp0
	mapfile -t raddr < <(awk '$1 == "replica" { print $3 }' <<<"$hosts")
	mapfile -t ralias < <(awk '$1 == "replica" { print $2 }' <<<"$hosts")
	resp0=$(awk '$1 == "resp" { print $3; exit }' <<<"$hosts")
	{ [ ${#raddr[@]} = 3 ] && [ -n "$resp0" ]; } || fatal "$conf does not list 3 replicas and a RESP address: $hosts"
	local extra=()
	if [ "$data" = disk ]; then
		local dd
		dd="$diskdir/$(basename "$slog")"
		mkdir -p "$dd"
		datadirs+=("$dd")
		extra=(-data "$dd")
	fi
	for i in 0 1 2; do
		a=${ralias[$i]}
		start_server "$a" GOMAXPROCS="$gmp" -- "$bin" -run server -config "$conf" -alias "$a" -protocol "$proto" \
			-cluster new ${extra[@]+"${extra[@]}"} -log "$slog/$a.log"
	done
	for i in 0 1 2; do
		for ((j = 0; ; j++)); do
			probe "${raddr[$i]%:*}" "${raddr[$i]##*:}" && grep -q -e 'cluster bootstrapped' -e 'rejoined as a full member' "$slog/${ralias[$i]}.log" 2>/dev/null && break
			system_alive
			[ "$j" -lt 500 ] || fatal "${ralias[$i]} is not a member of the cluster 10 s after its start; see $slog"
			sleep 0.02
		done
	done
	t0=$SECONDS
	until r=$(resp_ok "${resp0%:*}" "${resp0##*:}" SET run.sh:ready 1); do
		system_alive
		[ $((SECONDS - t0)) -lt 30 ] || fatal "replica0's RESP port $resp0 does not answer SET with OK within 30 s (last: ${r:-no reply}); see $slog"
		sleep 0.2
	done
	binding=redis
	bprops=(-p redis.addr="$resp0" -p redis.mode=single -p redis.datatype=string)
}

# etcd WHERE(tmpfs|disk): 3 members on 127.0.0.1.
start_etcd() {
	local where=$1 cbase pbase i cluster="" eps="" dd token t0
	free_ports 3 cbase
	free_ports 3 pbase
	if [ "$where" = tmpfs ]; then
		dd=$(mktemp -d /dev/shm/swiftpaxos-peers.XXXXXX)
	else
		dd="$diskdir/$(basename "$slog")"
		mkdir -p "$dd"
	fi
	datadirs+=("$dd")
	token="run-sh-$$-$(basename "$slog")"
	for i in 0 1 2; do
		cluster+="${cluster:+,}m$i=http://127.0.0.1:$((pbase + i))"
		eps+="${eps:+,}127.0.0.1:$((cbase + i))"
	done
	for i in 0 1 2; do
		start_server "m$i" -- "$etcd" --name "m$i" --data-dir "$dd/m$i" \
			--listen-client-urls "http://127.0.0.1:$((cbase + i))" --advertise-client-urls "http://127.0.0.1:$((cbase + i))" \
			--listen-peer-urls "http://127.0.0.1:$((pbase + i))" --initial-advertise-peer-urls "http://127.0.0.1:$((pbase + i))" \
			--initial-cluster "$cluster" --initial-cluster-token "$token" --initial-cluster-state new
	done
	t0=$SECONDS
	for i in 0 1 2; do
		until etcd_healthy 127.0.0.1 $((cbase + i)); do
			system_alive
			[ $((SECONDS - t0)) -lt 30 ] || fatal "etcd member m$i is not healthy 30 s after its start; see $slog"
			sleep 0.2
		done
	done
	binding=etcd
	bprops=(-p etcd.endpoints="$eps")
}

# redis AOF(no|always): one redis-server on 127.0.0.1.
start_redis() {
	local aof=$1 port dd t0 r
	free_ports 1 port
	if [ "$aof" = always ]; then
		dd="$diskdir/$(basename "$slog")"
		mkdir -p "$dd"
		datadirs+=("$dd")
		start_server redis -- "$redis" --bind 127.0.0.1 --port "$port" --save '' --dir "$dd" \
			--appendonly yes --appendfsync always
	else
		start_server redis -- "$redis" --bind 127.0.0.1 --port "$port" --save '' --appendonly no
	fi
	t0=$SECONDS
	until r=$(resp_ok 127.0.0.1 "$port" PING); do
		system_alive
		[ $((SECONDS - t0)) -lt 30 ] || fatal "redis-server on $port does not answer PING within 30 s (last: ${r:-no reply}); see $slog"
		sleep 0.1
	done
	binding=redis
	bprops=(-p redis.addr="127.0.0.1:$port" -p redis.mode=single -p redis.datatype=string)
}

system_start() { # SYSTEM
	case "$1" in
	sp-curpht) start_swiftpaxos curpht strong none ;;
	sp-curpho) start_swiftpaxos curpho strong none ;;
	sp-curpht-weak) start_swiftpaxos curpht weak none ;;
	sp-curpho-weak) start_swiftpaxos curpho weak none ;;
	sp-curpht-disk) start_swiftpaxos curpht strong disk ;;
	sp-curpho-disk) start_swiftpaxos curpho strong disk ;;
	etcd-tmpfs) start_etcd tmpfs ;;
	etcd-disk) start_etcd disk ;;
	redis) start_redis no ;;
	redis-aof) start_redis always ;;
	esac
}
# E only where the binding scans.
runs_workload() { [ "$2" != e ] || [[ "$1" == etcd-* ]]; }

cpu_ticks() { # PID...: utime+stime summed (fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name)
	local p s sum=0 st
	for p in "$@"; do
		s=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		s=${s##*) }
		read -r -a st <<<"$s"
		sum=$((sum + st[11] + st[12]))
	done
	echo "$sum"
}

# ycsb_phase PHASE WORKLOAD OUTFILE THREADS [RAWFILE]: go-ycsb against
# the running system, with RAWFILE every operation's latency
# (measurementtype=raw); sets ycmd to its command line.
ycmd=""
ycsb_phase() {
	local phase=$1 w=$2 f=$3 t=$4 raw=${5:-} p rc=0
	local c=(${pin_client[@]+"${pin_client[@]}"} "$ycsb" "$phase" "$binding" -P "$wdir/workload$w" "${bprops[@]}"
		-p table="ycsb$w" -p recordcount="$records" -p operationcount="$ops"
		-p threadcount="$t" -p dataintegrity=true -p silence=false)
	[ -z "$raw" ] || c+=(-p measurementtype=raw -p measurement.output_file="$raw")
	ycmd=$(cmdline "${c[@]}")
	"${c[@]}" >"$f" 2>&1 &
	p=$!
	live[$p]=1
	wait "$p" || rc=$?
	unset "live[$p]"
	return "$rc"
}

# parse FILE: "secs n errs p50/p99 x 5 counts" from go-ycsb's summary, or
# "none" (parse.awk).
parse() { awk -f "$here/scripts/peers/parse.awk" "$1"; }

# raw_summary RAWFILE OUTFILE: go-ycsb's summary of a phase recorded raw
# (which prints none) appended to its output, where parse reads it; then
# RAWFILE gzipped.
raw_summary() {
	[ -s "$1" ] || return 1
	{ echo "# the summary of $1 by scripts/ycsbstat (measurementtype=raw prints none)"; "$tools/ycsbstat" "$1"; } >>"$2" || return 1
	gzip -f "$1"
}

# cell ROUND THREADS SYSTEM WORKLOAD CELLDIR: load and run, one CSV row.
# Workload A's run phase keeps every latency in
# DIR/lat/ROUND-THREADS-SYSTEM-a.csv.gz, for the CDF.
cell() {
	local r=$1 t=$2 s=$3 w=$4 d=$5 status=ok secs=0 n=0 errs=0 lat=() counts="" summary rc=0 c0 c1 cpu="" load rate
	local raw="" rawok=true
	if [ "$w" = a ]; then
		raw="$dir/lat/$r-$t-$s-$w.csv"
		rm -f "$raw" "$raw.gz"
	fi
	load=$(cut -d' ' -f1 /proc/loadavg)
	if ! ycsb_phase load "$w" "$d/$w-load.out" "$t"; then
		status="load failed"
	else
		summary=$(parse "$d/$w-load.out")
		local ln=0 le=0
		[ "$summary" = none ] || read -r _ ln le _ <<<"$summary"
		if [ "$summary" = none ] || [ "$le" != 0 ] || [ "$ln" != "$records" ]; then
			status="load: $ln of $records inserted; $le errors"
		fi
	fi
	if [ "$status" = ok ]; then
		c0=$(cpu_ticks "${spids[@]}")
		ycsb_phase run "$w" "$d/$w-run.out" "$t" ${raw:+"$raw"} || rc=$?
		c1=$(cpu_ticks "${spids[@]}")
		if [ -n "$raw" ] && [ "$rc" = 0 ]; then raw_summary "$raw" "$d/$w-run.out" || rawok=false; fi
		summary=$(parse "$d/$w-run.out")
		if [ "$summary" != none ]; then
			local rest
			read -r secs n errs rest <<<"$summary"
			read -r -a lat <<<"$rest"
			counts="${lat[*]:10}"
			lat=("${lat[@]:0:10}")
		fi
		if [ "$rc" != 0 ]; then status="exit $rc"
		elif ! $rawok; then status="no raw latencies"
		elif [ "$summary" = none ]; then status="no summary"
		elif [ "$errs" != 0 ]; then
			status=errors
			if weak_misses "$s" "$w" "$d/$w-run.out" "$n" "$errs"; then status="weak misses"; fi
		elif [ "$n" != "$ops" ]; then status="counted $n of $ops"
		elif [[ $s == sp-* ]] && grep -q 'elected leader' "$d"/replica*.log; then status="leader elected"
		fi
		[ "$n" = 0 ] || cpu=$(awk -v d=$((c1 - c0)) -v t="$tck" -v n="$n" 'BEGIN { printf "%.1f", d / t * 1e6 / n }')
	fi
	rate=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0) ? n / s : 0 }')
	local i latcsv=""
	for i in 0 1 2 3 4 5 6 7 8 9; do
		local v=${lat[$i]:--}
		latcsv+=",${v/#-/}"
	done
	local sc
	sc=$(printf '%s ; ' "${scmds[@]}")
	echo "$r,$t,$s,$w,$records,$ops,$secs,$rate$latcsv,$errs,$status,$cpu,$load,$(csvq "$counts"),$(csvq "${sc% ; }"),$(csvq "$ycmd")" >>"$csv"
	printf 'round %s  %3s threads  %-15s %s  %7s ops/s  read p99 %6s us  cpu %6s us/op  %s\n' "$r" "$t" "$s" "$w" "$rate" "${lat[1]:--}" "${cpu:--}" "$status"
	if [ "$status" = "weak misses" ]; then
		keep=true
		echo "    $errs reads found no key (\"redis: nil\"): a weak read may miss another connection's newest insert (docs/PEERS.md, Known limits)" >&2
	elif [ "$status" != ok ]; then
		failed=true
		{ grep -e '^operation err: ' -e 'failed' -e 'unexpected' -e 'panic' "$d/$w-run.out" "$d/$w-load.out" 2>/dev/null || tail -n 3 "$d/$w-load.out"; } |
			awk '!seen[$0]++' | head -n 5 | sed 's/^/    /' >&2
		return 1
	fi
}

done_cell() { # ROUND THREADS SYSTEM WORKLOAD: an ok or a weak-misses row exists
	awk -F, -v r="$1" -v t="$2" -v s="$3" -v w="$4" 'NR > 1 && $1 == r && $2 == t && $3 == s && $4 == w && ($20 == "ok" || $20 == "weak misses") { f = 1; exit } END { exit !f }' "$csv"
}

# weak_misses SYSTEM WORKLOAD RUNOUT N ERRS: whether a run phase that
# reported errors is a weak workload D whose only failures are reads that
# found no key (misses.awk), every operation counted. D reads the records
# other connections have just inserted, which the weak level lets a
# session miss; every other workload reads records loaded before its run
# phase, and a miss there stays an error.
weak_misses() {
	[[ $1 == sp-*-weak && $2 == d ]] && [ "$(awk -v n="$4" -v want="$ops" -f "$peers/misses.awk" "$3")" = "$5" ]
}

echo "peers: ${systems[*]}; workloads $workloads; $records records, $ops operations, threads ${threads_list[*]}, $rounds rounds; go-ycsb $ycsb_version; load average $(cut -d' ' -f1-3 /proc/loadavg); files in $dir"
skipped=0
for ((r = 1; r <= rounds; r++)); do
	for t in "${threads_list[@]}"; do
		for s in "${systems[@]}"; do
			todo=()
			for ((i = 0; i < ${#workloads}; i++)); do
				w=${workloads:i:1}
				runs_workload "$s" "$w" || continue
				if done_cell "$r" "$t" "$s" "$w"; then
					echo "round $r  $t threads  $s $w: in peers.csv, skipped"
					skipped=$((skipped + 1))
				else
					todo+=("$w")
				fi
			done
			slog="$dir/logs/$r-$t-$s"
			# Logs a stopped comparison left of a system whose cells are
			# all in peers.csv now.
			[ ${#todo[@]} -gt 0 ] || { rm -rf "$slog"; continue; }
			rm -rf "$slog"
			mkdir -p "$slog"
			system_start "$s"
			ok=true keep=false
			for w in "${todo[@]}"; do
				cell "$r" "$t" "$s" "$w" "$slog" || ok=false
				system_alive
			done
			system_stop
			! $ok || $keep || rm -rf "$slog"
		done
	done
done
rmdir "$dir/logs" 2>/dev/null || true

# The table: per thread setting, workload and system, medians over the
# ok rounds.
{
	echo "### YCSB through go-ycsb $ycsb_version: swiftpaxos (RESP), etcd, Redis"
	echo
	echo "$(date +%Y-%m-%d), $(nproc) cores; recordcount=$records (10 fields x 100 B), operationcount=$ops; each cell the median of its ok rounds (of $rounds), throughput with its range; latencies in µs as go-ycsb reports them (D: the write column is INSERT; F: UPDATE, the update of a read-modify-write included); server CPU from /proc/PID/stat over the run phase; swiftpaxos with $modes. Systems and their exact command lines: peers.csv."
	for t in "${threads_list[@]}"; do
		echo
		echo "#### $t threads"
		echo
		echo "| workload | system | ops/s (range) | read p50 | read p99 | write p50 | write p99 | server CPU µs/op | rounds |"
		echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
		awk -F, -v t="$t" -v ws="$workloads" -v sys="${systems[*]}" -v R="$rounds" '
			function med(list,   a, n, i, j, x) {
				n = split(list, a, " ")
				if (n == 0) return ""
				for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				mn = a[1]; mx = a[n]
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			function add(k, v) { if (v != "") vals[k] = vals[k] " " v }
			NR == 1 { next }
			$2 == t && $1 <= R && $20 == "weak misses" {
				k = $4 SUBSEP $3; wm[k]++
				if (!(k in wlo) || $19 + 0 < wlo[k]) wlo[k] = $19 + 0
				if ($19 + 0 > whi[k]) whi[k] = $19 + 0
			}
			$2 == t && $1 <= R && $20 == "ok" {
				k = $4 SUBSEP $3; n[k]++
				add(k SUBSEP "rate", $8); add(k SUBSEP "r50", $9); add(k SUBSEP "r99", $10)
				w50 = ($4 == "d") ? $13 : $11; w99 = ($4 == "d") ? $14 : $12
				add(k SUBSEP "w50", w50); add(k SUBSEP "w99", w99); add(k SUBSEP "cpu", $21)
			}
			END {
				ns = split(sys, S, " ")
				for (i = 1; i <= length(ws); i++) {
					w = substr(ws, i, 1)
					for (j = 1; j <= ns; j++) {
						k = w SUBSEP S[j]
						if (w == "e" && S[j] !~ /^etcd-/) continue
						if (!(k in n) && (k in wm)) {
							m = (wlo[k] == whi[k]) ? wlo[k] : wlo[k] " to " whi[k]
							printf "| %s | %s | — (weak misses in %d round%s: %s reads found no key) | | | | | | 0 |\n", toupper(w), S[j], wm[k], (wm[k] == 1) ? "" : "s", m
							continue
						}
						if (!(k in n)) { printf "| %s | %s | — | | | | | | 0 |\n", toupper(w), S[j]; continue }
						rate = med(vals[k SUBSEP "rate"]); rng = sprintf("%.0f (%.0f-%.0f)", rate, mn, mx)
						printf "| %s | %s | %s | %s | %s | %s | %s | %.1f | %d |\n", toupper(w), S[j], rng,
							med(vals[k SUBSEP "r50"]), med(vals[k SUBSEP "r99"]), med(vals[k SUBSEP "w50"]),
							med(vals[k SUBSEP "w99"]), med(vals[k SUBSEP "cpu"]), n[k]
					}
				}
			}' "$csv"
	done
	echo
	# A cell rerun after a failure keeps its failed row: a cell counts as
	# failed only without an ok row.
	awk -F, 'NR > 1 { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4; if ($20 == "ok") ok[k] = 1; else if ($20 == "weak misses") wm[k] = 1; else bad[k] = 1 }
		END {
			for (k in bad) if (!(k in ok) && !(k in wm)) n++
			for (k in wm) if (!(k in ok)) m++
			printf "Cells without an ok row in peers.csv: %d", n + m
			if (m) printf ", %d of them weak misses (weak D reads that found no key: docs/PEERS.md, Known limits)", m
			print "."
		}' "$csv"
} >"$dir/peers.md"
echo
cat "$dir/peers.md"
[ "$skipped" = 0 ] || echo "($skipped cells were already in peers.csv and skipped)"

# The charts, from every ok cell of peers.csv. A comparison whose every
# cell had weak misses has no ok cell, hence nothing to draw, and passed.
echo
if ! awk -F, 'NR > 1 && $20 == "ok" { f = 1; exit } END { exit !f }' "$csv"; then
	echo "run.sh: no ok cell in $csv, so no charts"
elif ! "$tools/plot" -peers "$dir" -out "$dir/charts"; then
	echo "run.sh: scripts/plot failed (see above)" >&2
	failed=true
fi
if $failed; then
	echo "FAIL: a cell failed or reported errors, or the charts failed (see $dir)"
	exit 1
fi
