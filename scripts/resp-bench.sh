#!/usr/bin/env bash
# The RESP front-end against swiftpaxos's own benchmark and an unreplicated
# redis-server, in one sitting (issue 30, docs/TUNING.md). Per round, each
# system on the machine alone, their order reversed every other round:
#   - swiftpaxos through RESP: a new cluster of 3 in-memory replicas
#     (-cluster new) of the benchmark configuration, then
#       redis-benchmark -t ping,set,get,incr -n N -c 50 -P 1 --csv
#       redis-benchmark -t ping,set,get,incr -n N -c 50 -P 16 --csv
#     against replica0's RESP port, then the cluster is stopped;
#   - swiftpaxos's own benchmark: ./run-multi-client.sh with the same
#     configuration, for -T seconds (runTime), its throughput_ops;
#   - redis-server --save '' --appendonly no on 127.0.0.1, the same two
#     redis-benchmark commands.
# Then, per protocol, a new cluster and the many-connections run
#       redis-benchmark -c C -n N -t set,get --csv
# against replica0, while the TCP connections established on the replica
# ports and on replica0's RESP port are counted (ss -tnH state established,
# server side, every 0.25 s), and those on the Unix socket through which
# replica0's front-end reaches its own replica (ss -xH, docs/DECISIONS.md
# 54): those among the replicas (counted before any RESP command, once the
# count holds still), the most on the replica ports and the socket during
# the run (the difference is the front-end's sessions': all RESP
# connections share one connection per replica), and the most on
# replica0's RESP port.
#
#   scripts/resp-bench.sh [-p curpht|curpho|both] [-n REQUESTS] [-r ROUNDS]
#                         [-T SECONDS] [-c CONNS] [-o DIR] [--keep]
#
# Defaults: both protocols (each with its own RESP cluster and native run
# in every round), -n 200000, 3 rounds, a native run of 20 s, -c 1000 (0
# skips the many-connections run), DIR results/resp-bench-<time> under the
# repository (it must be new or empty). DIR gets resp-bench.csv (round,
# system, pipeline, test, rps, p50_ms, errors, command: one row per
# redis-benchmark test, one per native run, round "many" for the
# many-connections run), resp-bench.md (the tables printed at the end:
# medians over the rounds and their range, ready for docs/TUNING.md, the
# ratio RESP -P 16 SET and GET / native throughput per protocol, the
# connection counts) and bench.conf. Everything else (replica logs,
# redis-benchmark outputs, the native runs' directories) is removed when
# every run passed, kept with --keep or when one failed.
#
# bench.conf is the shipped multi-client.conf (the same tuning for RESP and
# native) with three changes: the replicas on free ports of 127.0.0.1-3
# (three consecutive ports from a random base in 20000-31999, below Linux's
# ephemeral range, checked unused with ss: no socket of any state on
# them), respPort on three more, and runTime. The cluster's replicas run
# with GOMAXPROCS at their share of the cores as run-multi-client.sh sets
# it (counting redis-benchmark: 4 processes), unless GOMAXPROCS is set.
# redis-benchmark 7.0.15 has no option to count errors: at an error reply
# it prints "Error from server: ..." and stops (exit 1); such lines are the
# errors column, and a run that fails otherwise counts one error. It uses
# bin/swiftpaxos, built first when it is missing or older than go.mod or a
# Go source file ($BIN overrides the binary and skips the build; the
# native benchmark runs bin/swiftpaxos all the same). Needs redis-server,
# redis-cli and redis-benchmark, and ulimit -n above CONNS + 128 (each of
# redis-benchmark and the replica holds one descriptor per connection; the
# soft limit is raised up to the hard one if needed, else that run is
# skipped, and said so). Every process it starts is stopped by its PID on
# exit. Exit status: 0 passed, 1 a run failed or a redis-benchmark
# reported an error, 2 usage or missing tools, 130 interrupted.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
protocols=(curpht curpho)
reqs=200000
rounds=3
runtime=20
conns=1000
out=""
keep=false
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "resp-bench.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	-p) [ $# -ge 2 ] || die "-p needs a protocol (curpht, curpho or both)"
		case "$2" in curpht | curpho) protocols=("$2") ;; both) protocols=(curpht curpho) ;;
		*) die "unknown protocol '$2' (curpht, curpho or both)" ;; esac
		shift 2 ;;
	-n) [ $# -ge 2 ] || die "-n needs a number"; reqs=$2; shift 2 ;;
	-r) [ $# -ge 2 ] || die "-r needs a number"; rounds=$2; shift 2 ;;
	-T) [ $# -ge 2 ] || die "-T needs seconds"; runtime=$2; shift 2 ;;
	-c) [ $# -ge 2 ] || die "-c needs a number"; conns=$2; shift 2 ;;
	-o) [ $# -ge 2 ] || die "-o needs a directory"; out=$2; shift 2 ;;
	--keep) keep=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1 (-h for the usage)" ;;
	esac
done
[[ "$reqs" =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number, not '$reqs'"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "-r needs a positive number, not '$rounds'"
[[ "$runtime" =~ ^[1-9][0-9]*$ ]] || die "-T needs a positive number of seconds, not '$runtime'"
[[ "$conns" =~ ^(0|[1-9][0-9]*)$ ]] || die "-c needs a number (0 skips the many-connections run), not '$conns'"
[ "$conns" -le 10000 ] || die "-c $conns: at most 10000 (redis-benchmark's and the replicas' own limits)"

for t in redis-server redis-cli redis-benchmark; do
	if ! command -v "$t" >/dev/null; then
		echo "resp-bench.sh: $t is missing; install the Redis tools with:" >&2
		echo "  apt-get install redis-tools redis-server" >&2
		exit 2
	fi
done
command -v ss >/dev/null || die "ss (iproute2) is missing: it finds free ports and counts connections"

if [ -z "$out" ]; then
	out="$here/results/resp-bench-$(date +%Y%m%d-%H%M%S)"
fi
if [ -e "$out" ] && [ ! -d "$out" ]; then
	die "output directory $out is not a directory"
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	die "output directory $out is not empty"
fi
mkdir -p "$out"
dir=$(cd "$out" && pwd)

# The binary: as run-multi-client.sh builds it (missing, or older than
# go.mod or a Go source file that is not a test, scripts/ and results/
# aside).
# shellcheck source=scripts/cluster-lib.sh
. "$here/scripts/cluster-lib.sh"
swiftpaxos_binary

declare -A live     # the processes started and not yet waited for, stopped by PID on exit
declare -A launcher # those of them that are run-multi-client.sh
failed=false
reap() { wait "$1" 2>/dev/null || true; unset "live[$1]" "launcher[$1]"; }
# stop PID...: TERM, at most 3 s, then KILL. A launcher is sent a second
# TERM instead (the first stops its clients, the second everything) and
# given 30 s to stop its own processes by their PIDs before a KILL.
stop() {
	local p i any
	for p in "$@"; do kill -TERM "$p" 2>/dev/null || true; done
	for i in $(seq 150); do
		any=false
		for p in "$@"; do
			if kill -0 "$p" 2>/dev/null; then
				any=true
				[ "$i" != 30 ] || [ -z "${launcher[$p]:-}" ] || kill -TERM "$p" 2>/dev/null || true
				[ "$i" != 30 ] || [ -n "${launcher[$p]:-}" ] || kill -KILL "$p" 2>/dev/null || true
			fi
		done
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
		find "$dir" -mindepth 1 -maxdepth 1 ! -name resp-bench.csv ! -name resp-bench.md ! -name bench.conf -exec rm -rf {} +
	fi
	echo "files: $dir"
}
trap cleanup EXIT
trap 'echo "resp-bench.sh: interrupted" >&2; failed=true; exit 130' INT TERM

# A failure that makes the rest meaningless.
fatal() { echo "resp-bench.sh: $*" >&2; failed=true; exit 1; }

# Free ports: N consecutive ones on which no socket of any state is.
rbase="" respbase="" redisport=""
free_ports 3 rbase
free_ports 3 respbase
free_ports 1 redisport

# bench.conf: multi-client.conf, replicas on rbase.., respPort respbase,
# runTime.
conf="$dir/bench.conf"
derive_conf "$conf" scripts/resp-bench.sh "$rbase" respPort="$respbase" runTime="${runtime}s" reqs= ||
	fatal "cannot derive bench.conf from multi-client.conf"
hosts=$("$bin" -run hosts -config "$conf" 2>"$dir/hosts.err") || { cat "$dir/hosts.err" >&2; fatal "bench.conf is rejected (see above)"; }
mapfile -t raddr < <(awk '$1 == "replica" { print $3 }' <<<"$hosts")
mapfile -t ralias < <(awk '$1 == "replica" { print $2 }' <<<"$hosts")
resp0=$(awk '$1 == "resp" { print $3; exit }' <<<"$hosts")
{ [ ${#raddr[@]} = 3 ] && [ -n "$resp0" ]; } || fatal "bench.conf does not list 3 replicas and a RESP address: $hosts"
resp0_host=${resp0%:*}
resp0_port=${resp0##*:}
gmp=${GOMAXPROCS:-$((($(nproc) + 3) / 4))}

csv="$dir/resp-bench.csv"
echo "round,system,pipeline,test,rps,p50_ms,errors,command" >"$csv"
now() { date +%s.%N; }
probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# The cluster of the RESP runs.
declare -a cpid=()
cluster_start() { # PROTOCOL LOGDIR
	local i j a
	mkdir -p "$2"
	cpid=()
	for i in 0 1 2; do
		a=${ralias[$i]}
		GOMAXPROCS=$gmp "$bin" -run server -config "$conf" -alias "$a" -protocol "$1" -cluster new \
			-log "$2/$a.log" >"$2/$a.out" 2>"$2/$a.err" &
		cpid[i]=$!
		live[$!]=1
	done
	# Listening (5 s), members of the cluster (10 s): a replica that exits
	# fails the run at once.
	for i in 0 1 2; do
		for ((j = 0; ; j++)); do
			probe "${raddr[$i]%:*}" "${raddr[$i]##*:}" && grep -q -e 'cluster bootstrapped' -e 'rejoined as a full member' "$2/${ralias[$i]}.log" 2>/dev/null && break
			cluster_alive "$2"
			[ "$j" -lt 500 ] || fatal "${ralias[$i]} is not a member of the cluster 10 s after its start; see $2"
			sleep 0.02
		done
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
# A RESP SET answered OK by replica0 (30 s).
cluster_ready() { # LOGDIR
	local t0=$SECONDS r
	until r=$(timeout 5 redis-cli -h "$resp0_host" -p "$resp0_port" SET resp-bench:ready 1 2>&1) && [ "$r" = OK ]; do
		cluster_alive "$1"
		[ $((SECONDS - t0)) -lt 30 ] || fatal "replica0's RESP port $resp0 does not answer SET with OK within 30 s (last: $r); see $1"
		sleep 0.2
	done
}
cluster_stop() { stop "${cpid[@]}"; cpid=(); }

# rb ROUND SYSTEM PIPELINE FILE HOST PORT ARGS...: one redis-benchmark
# run, its rows appended to the CSV. Its summary on stdout.
rb() {
	local round=$1 system=$2 pipeline=$3 f=$4 host=$5 port=$6 rc=0 p errs cmd
	shift 6
	local args=(-h "$host" -p "$port" "$@" --csv)
	cmd="redis-benchmark ${args[*]}"
	redis-benchmark "${args[@]}" >"$f.csv" 2>"$f.err" &
	p=$!
	live[$p]=1
	wait "$p" || rc=$?
	unset "live[$p]"
	errs=$(cat "$f.csv" "$f.err" | grep -c 'Error from server' || true)
	if [ "$rc" != 0 ] && [ "$errs" = 0 ]; then errs=1; fi
	# The CSV: "test","rps",...,"p50_latency_ms",... (quotes dropped).
	awk -F, -v round="$round" -v sys="$system" -v pl="$pipeline" -v errs="$errs" -v cmd="$cmd" '
		{ gsub(/"/, "") }
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 != "" && ("rps" in col) {
			p50 = ("p50_latency_ms" in col) ? $col["p50_latency_ms"] : ""
			printf "%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", round, sys, pl, $1, $col["rps"], p50, errs, cmd; rows++
		}
		END { if (!rows) printf "%s,%s,%s,-,,,%s,\"%s\"\n", round, sys, pl, errs, cmd }' "$f.csv" >>"$csv"
	awk -F, -v errs="$errs" '{ gsub(/"/, "") } NR > 1 && $1 != "" { printf "%s %.0f  ", $1, $2 } END { print "(errors " errs ")" }' "$f.csv"
	if [ "$errs" != 0 ]; then
		failed=true
		echo "    redis-benchmark exited $rc: $(cat "$f.err" "$f.csv" | grep -v '^"' | head -3 | tr '\n' ' ')(see $f.err)" >&2
	fi
}

resp_round() { # ROUND PROTOCOL
	local d="$dir/r$1-resp-$2" pl
	cluster_start "$2" "$d"
	cluster_ready "$d"
	for pl in 1 16; do
		printf 'round %s: swiftpaxos %s RESP -P %s: ' "$1" "$2" "$pl"
		rb "$1" "swiftpaxos-resp-$2" "$pl" "$d/P$pl" "$resp0_host" "$resp0_port" -t ping,set,get,incr -n "$reqs" -c 50 -P "$pl"
		cluster_alive "$d"
	done
	cluster_stop
}

native_round() { # ROUND PROTOCOL
	local d="$dir/r$1-native-$2" p rc=0 ops errs cmd
	cmd="./run-multi-client.sh -c $conf -o $d -p $2"
	printf 'round %s: swiftpaxos %s native benchmark (%s s): ' "$1" "$2" "$runtime"
	(cd "$here" && exec ./run-multi-client.sh -c "$conf" -o "$d" -p "$2") >"$dir/r$1-native-$2.out" 2>&1 &
	p=$!
	live[$p]=1
	launcher[$p]=1
	wait "$p" || rc=$?
	unset "live[$p]" "launcher[$p]"
	# summary.json's own fields are indented by two spaces.
	ops=$(awk -F'[:,]' '/^  "throughput_ops":/ { gsub(/[ \t]/, "", $2); print $2; exit }' "$d/summary.json" 2>/dev/null || true)
	errs=$(awk -F'[:,]' '/^  "(errors|timeouts)":/ { gsub(/[ \t]/, "", $2); n += $2 } END { print n + 0 }' "$d/summary.json" 2>/dev/null || echo 0)
	if [ "$rc" != 0 ] || [ -z "$ops" ]; then
		failed=true
		[ "$errs" != 0 ] || errs=1
		echo "failed (exit $rc): see $dir/r$1-native-$2.out"
		tail -n 5 "$dir/r$1-native-$2.out" | sed 's/^/    /' >&2
	else
		printf '%.0f ops/s (errors and timeouts %s)\n' "$ops" "$errs"
	fi
	echo "$1,swiftpaxos-native-$2,,mixed,$ops,,$errs,\"$cmd\"" >>"$csv"
}

redis_round() { # ROUND
	local d="$dir/r$1-redis" p t0=$SECONDS pl
	mkdir -p "$d"
	redis-server --port "$redisport" --bind 127.0.0.1 --save '' --appendonly no --dir "$d" >"$d/redis-server.log" 2>&1 &
	p=$!
	live[$p]=1
	until [ "$(timeout 2 redis-cli -h 127.0.0.1 -p "$redisport" PING 2>/dev/null)" = PONG ]; do
		kill -0 "$p" 2>/dev/null || { tail -n 5 "$d/redis-server.log" >&2; fatal "redis-server exited at its start (see $d)"; }
		[ $((SECONDS - t0)) -lt 10 ] || fatal "redis-server does not answer PING on 127.0.0.1:$redisport within 10 s"
		sleep 0.05
	done
	for pl in 1 16; do
		printf 'round %s: redis-server -P %s: ' "$1" "$pl"
		rb "$1" redis-server "$pl" "$d/P$pl" 127.0.0.1 "$redisport" -t ping,set,get,incr -n "$reqs" -c 50 -P "$pl"
	done
	stop "$p"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "resp-bench: ${protocols[*]}, $rounds round(s) of -n $reqs, native runs of $runtime s, -c $conns; replicas on ${raddr[*]}, RESP $resp0, redis-server on 127.0.0.1:$redisport; GOMAXPROCS=$gmp for the cluster's replicas; load average $load0; files in $dir"
systems=()
for p in "${protocols[@]}"; do systems+=("resp $p" "native $p"); done
systems+=(redis)
for ((r = 1; r <= rounds; r++)); do
	order=("${systems[@]}")
	if [ $((r % 2)) = 0 ]; then
		order=()
		for ((i = ${#systems[@]} - 1; i >= 0; i--)); do order+=("${systems[$i]}"); done
	fi
	for s in "${order[@]}"; do
		read -r kind p <<<"$s"
		case $kind in
		resp) resp_round "$r" "$p" ;;
		native) native_round "$r" "$p" ;;
		redis) redis_round "$r" ;;
		esac
	done
done

# The many-connections run, per protocol.
ports_filter() { # PORT...: an ss filter on the local (server) port
	local f="" p
	for p in "$@"; do f+="${f:+ or }sport = :$p"; done
	echo "( $f )"
}
rfilter=$(ports_filter "${raddr[@]##*:}")
established() { ss -tnH state established "$1" | wc -l; }
# The connections on replica0's own Unix socket (@swiftpaxos/PID/...).
established_local() { ss -xH state established | grep -c "@swiftpaxos/${cpid[0]}/" || true; }
conn_report=()
many() { # PROTOCOL
	local d="$dir/many-$1" peers front s p t0 last n stable=0
	cluster_start "$1" "$d"
	# Among the replicas: the count once it has held still for 1 s (at
	# most 5 s), before any RESP command.
	t0=$SECONDS
	last=$(established "$rfilter")
	while [ "$stable" -lt 4 ] && [ $((SECONDS - t0)) -lt 5 ]; do
		sleep 0.25
		n=$(established "$rfilter")
		if [ "$n" = "$last" ]; then stable=$((stable + 1)); else stable=0; last=$n; fi
	done
	peers=$last
	cluster_ready "$d"
	(
		while :; do
			echo "$(established "$rfilter") $(established "( sport = :$resp0_port )") $(established_local)"
			sleep 0.25
		done
	) >"$d/connections.txt" &
	s=$!
	live[$s]=1
	printf 'many connections: swiftpaxos %s RESP -c %s: ' "$1" "$conns"
	rb many "swiftpaxos-resp-$1" 1 "$d/c$conns" "$resp0_host" "$resp0_port" -c "$conns" -n "$reqs" -t set,get
	stop "$s"
	cluster_alive "$d"
	cluster_stop
	read -r maxr maxresp maxlocal < <(awk '$1 > a { a = $1 } $2 > b { b = $2 } $3 > c { c = $3 } END { print a + 0, b + 0, c + 0 }' "$d/connections.txt")
	front=$((maxr - peers + maxlocal))
	conn_report+=("| $1 | $conns | $peers | $maxr | $maxlocal | $front | $maxresp |")
	echo "    connections established: among the replicas $peers (TCP); during the run at most $maxr on the replica ports and $maxlocal on replica0's Unix socket (the front-end's sessions: $front); on replica0's RESP port at most $maxresp"
}
many_note=""
if [ "$conns" -gt 0 ]; then
	need=$((conns + 128))
	if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
		ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
	fi
	if [ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge "$need" ]; then
		for p in "${protocols[@]}"; do many "$p"; done
	else
		many_note="not run: ulimit -n is $(ulimit -n) (hard $(ulimit -Hn)), and -c $conns needs $need descriptors in each of redis-benchmark and the replica (2 per connection in all): raise the hard limit"
		echo "resp-bench.sh: the many-connections run is $many_note" >&2
	fi
fi

# The tables: medians over the rounds, with their range.
{
	echo "### RESP front-end against the native benchmark and redis-server"
	echo
	echo "$(date +%Y-%m-%d), $(nproc) cores, load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $rounds round(s), systems alternated; \`redis-benchmark -t ping,set,get,incr -n $reqs -c 50 -P 1|16\` against replica0's RESP port (a new 3-replica cluster of multi-client.conf per round) and against \`redis-server --save '' --appendonly no\`; native: \`./run-multi-client.sh\` with multi-client.conf, runTime ${runtime}s. Requests per second, median (min–max) over the rounds; p50 in ms below."
	echo
	awk -F, '
		NR == 1 || $1 == "many" || $5 == "" { next }
		{ k = $2 SUBSEP $3 SUBSEP $4; n[k]++; v[k, n[k]] = $5 + 0; l[k, n[k]] = $6; if (!(($2, $3) in seen)) { seen[$2, $3] = 1; rows[++nr] = $2 SUBSEP $3 } }
		function med(k, a, m, i, j, t) {
			m = n[k]; for (i = 1; i <= m; i++) s[i] = a[k, i]
			for (i = 2; i <= m; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
			lo = s[1]; hi = s[m]
			return (m % 2) ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
		}
		function cell(k, a, fmt,   x) {
			if (!(k in n)) return "—"
			x = sprintf(fmt, med(k, a))
			if (n[k] > 1) x = x sprintf(" (" fmt "–" fmt ")", lo, hi)
			return x
		}
		function name(sys) {
			if (sys ~ /^swiftpaxos-resp-/) { sub(/^swiftpaxos-resp-/, "", sys); return "swiftpaxos " sys ", RESP" }
			if (sys ~ /^swiftpaxos-native-/) { sub(/^swiftpaxos-native-/, "", sys); return "swiftpaxos " sys ", native benchmark" }
			return sys " (unreplicated)"
		}
		END {
			split("PING_INLINE PING_MBULK SET GET INCR", tests, " ")
			for (pass = 1; pass <= 2; pass++) {
				if (pass == 2) print "\np50 latency (ms):\n"
				print "| system | -P | PING_INLINE | PING_MBULK | SET | GET | INCR |"
				print "|---|---:|---:|---:|---:|---:|---:|"
				for (r = 1; r <= nr; r++) {
					split(rows[r], f, SUBSEP)
					if (f[1] ~ /native/ || f[1] == "") continue
					line = "| " name(f[1]) " | " f[2] " |"
					for (t = 1; t <= 5; t++) {
						k = f[1] SUBSEP f[2] SUBSEP tests[t]
						line = line " " (pass == 1 ? cell(k, v, "%.0f") : cell(k, l, "%.3f")) " |"
					}
					print line
				}
			}
			print "\n| native benchmark | ops/s |"
			print "|---|---:|"
			for (r = 1; r <= nr; r++) {
				split(rows[r], f, SUBSEP)
				if (f[1] !~ /native/) continue
				k = f[1] SUBSEP f[2] SUBSEP "mixed"
				print "| " name(f[1]) " | " cell(k, v, "%.0f") " |"
				nat = med(k, v); p = f[1]; sub(/^swiftpaxos-native-/, "", p)
				s16 = "swiftpaxos-resp-" p SUBSEP 16 SUBSEP
				if ((s16 "SET") in n && (s16 "GET") in n && nat > 0) {
					rs = med(s16 "SET", v) / nat; rg = med(s16 "GET", v) / nat
					ratio[++nratio] = sprintf("%s: SET %.2f, GET %.2f (goal 0.5: %s)", p, rs, rg, (rs >= 0.5 && rg >= 0.5) ? "met" : "not met")
				}
			}
			if (nratio) {
				printf "\nRESP at -P 16 / native throughput (medians): "
				for (i = 1; i <= nratio; i++) printf "%s%s", (i > 1 ? "; " : ""), ratio[i]
				print ""
			}
		}' "$csv"
	if [ "$conns" -gt 0 ]; then
		echo
		echo "Many connections: \`redis-benchmark -c $conns -n $reqs -t set,get\` against replica0; connections established (\`ss -tnH state established\` and, for the Unix socket through which the front-end reaches its own replica, \`ss -xH\`; counted on the listening side, every 0.25 s): on the replica ports among the replicas before any RESP command, and the most on them and on the socket during the run, the front-end's sessions' being the difference plus the socket's (they share one connection per replica); the most on replica0's RESP port during the run."
		echo
		if [ -n "$many_note" ]; then
			echo "$many_note"
		else
			echo "| protocol | -c | replica ports: among the replicas | replica ports, during the run | replica0's Unix socket, during the run | the front-end's | RESP port, during the run |"
			echo "|---|---:|---:|---:|---:|---:|---:|"
			printf '%s\n' "${conn_report[@]}"
			echo
			awk -F, '$1 == "many" { printf "%s %s: %.0f req/s, p50 %s ms, errors %s\n", $2, $4, $5, $6, $7 }' "$csv" | sed 's/^swiftpaxos-resp-/    /'
		fi
	fi
	errs=$(awk -F, 'NR > 1 { n += $7 } END { print n + 0 }' "$csv")
	echo
	echo "Errors reported: $errs."
} >"$dir/resp-bench.md"
echo
cat "$dir/resp-bench.md"
if $failed; then
	echo "FAIL: a run failed or reported errors (see $dir)"
	exit 1
fi
