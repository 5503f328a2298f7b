#!/usr/bin/env bash
# Runs a whole swiftpaxos deployment on this machine: every replica and
# client process of the configuration on its loopback address. It builds
# the binary when it is missing or stale, waits for the replicas by probing
# their ports, runs the clients, stops the replicas, merges the results into
# DIR/summary.json and DIR/summary.txt (printed), and stops every process it
# started, by PID, on exit or interrupt. It exits non-zero when any process
# failed, any operation errored or timed out, or the check failed.
set -euo pipefail

usage() {
	cat <<USAGE
usage: ./run-multi-client.sh [-c CONF] [-o DIR] [-p PROTOCOL] [-t THREADS]
                             [--check] [--kill-leader-at SECONDS] [-h]

  -c CONF                  configuration file (default: multi-client.conf)
  -o DIR                   output directory (default: results/<timestamp>)
  -p PROTOCOL              protocol, overriding the configuration (curpht, curpho)
  -t THREADS               sessions per client process, overriding clientThreads
  --check                  unique values, record histories and applied logs,
                           and check the run (PROTOCOL.md 2.6)
  --kill-leader-at SECONDS kill -9 the initial leader (replica0) that many
                           seconds after the clients start
  --kill-follower-at SECONDS
                           kill -9 the last replica of the configuration instead
  --loglevel LEVEL         log level of every process (debug, info, warn, error)
  -h                       this help

Output in DIR: summary.txt, summary.json, per-process logs (ALIAS.log),
client outputs (ALIAS.out, ALIAS.err), raw results (results-ALIAS.json),
and with --check the histories and applied logs.
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
conf=multi-client.conf
out=""
extra=()
check=0
kill_at=""
while [ $# -gt 0 ]; do
	case "$1" in
	-c) conf=${2:?-c needs a file}; shift 2 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	-p) extra+=(-protocol "${2:?-p needs a protocol}"); shift 2 ;;
	-t) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "run-multi-client.sh: -t needs a positive number" >&2; exit 2; }
		threads=$2; shift 2 ;;
	--check) check=1; extra+=(-check); shift ;;
	--loglevel) extra+=(-loglevel "${2:?--loglevel needs a level}"); shift 2 ;;
	--kill-leader-at | --kill-follower-at)
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "run-multi-client.sh: $1 needs seconds" >&2; exit 2; }
		kill_at=$2; kill_which=${1#--kill-}; kill_which=${kill_which%-at}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-multi-client.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
done
[ -f "$conf" ] || { echo "run-multi-client.sh: no configuration file $conf" >&2; exit 2; }
[ -n "$out" ] || out="results/$(date +%Y%m%d-%H%M%S)"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	echo "run-multi-client.sh: output directory $out is not empty" >&2
	exit 2
fi
mkdir -p "$out"

bin="$here/bin/swiftpaxos"
# Stale when a source file of the binary (not a test, not a script's own
# Go code) is newer than it.
if [ ! -x "$bin" ] || [ "$here/go.mod" -nt "$bin" ] ||
	[ -n "$(find "$here" -path "$here/scripts" -prune -o -path "$here/results" -prune -o -name '*.go' ! -name '*_test.go' -newer "$bin" -print -quit)" ]; then
	echo "building $bin"
	(cd "$here" && go build -o "$bin" .)
fi

hosts=$("$bin" -run hosts -config "$conf")
# checkerMode / check: true in the file means the same as --check.
if grep -q '^option check true$' <<<"$hosts" && [ "$check" = 0 ]; then
	check=1
	extra+=(-check)
fi

declare -A pid_of
all_pids=()
cleanup() {
	local p
	for p in "${all_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${all_pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'echo "run-multi-client.sh: interrupted" >&2; exit 130' INT TERM

# probe HOST PORT: succeeds once something accepts connections there.
probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# A port that already accepts connections belongs to another run: probing
# it would connect this run's clients to somebody else's replica.
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	if probe "${addr%:*}" "${addr##*:}"; then
		echo "run-multi-client.sh: replica $alias cannot start: $addr is already in use (another run?)" >&2
		exit 1
	fi
done <<<"$hosts"

start=$(date +%s.%N)
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	args=(-run server -config "$conf" -alias "$alias" -log "$out/$alias.log" "${extra[@]}")
	[ "$check" = 0 ] || args+=(-appliedlog "$out/log-$alias.jsonl")
	"$bin" "${args[@]}" 2>>"$out/$alias.log" &
	pid_of[$alias]=$!
	all_pids+=($!)
done <<<"$hosts"

# Wait for every replica to listen: probe its port every 20 ms, at most
# 250 times (5 s), and fail at once if the process exits.
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	for ((i = 0; ; i++)); do
		probe "${addr%:*}" "${addr##*:}" && break
		if ! kill -0 "${pid_of[$alias]}" 2>/dev/null; then
			echo "run-multi-client.sh: replica $alias exited during start-up; its log ($out/$alias.log) ends with:" >&2
			tail -3 "$out/$alias.log" >&2
			exit 1
		fi
		if [ "$i" -ge 250 ]; then
			echo "run-multi-client.sh: replica $alias is not listening on $addr after 5 s" >&2
			exit 1
		fi
		sleep 0.02
	done
done <<<"$hosts"

clients=()
while read -r role alias addr; do
	[ "$role" = client ] || continue
	args=(-run client -config "$conf" -alias "$alias" -log "$out/$alias.log" -results "$out/results-$alias.json" "${extra[@]}")
	[ -z "${threads:-}" ] || args+=(-threads "$threads")
	[ "$check" = 0 ] || args+=(-history "$out/history-$alias.jsonl")
	"$bin" "${args[@]}" >"$out/$alias.out" 2>"$out/$alias.err" &
	pid_of[$alias]=$!
	all_pids+=($!)
	clients+=("$alias")
done <<<"$hosts"

killed=""
if [ -n "$kill_at" ]; then
	if [ "$kill_which" = leader ]; then
		victim=$(awk '$1 == "replica" { print $2; exit }' <<<"$hosts")
	else
		victim=$(awk '$1 == "replica" { v = $2 } END { print v }' <<<"$hosts")
	fi
	(sleep "$kill_at" && kill -KILL "${pid_of[$victim]}" 2>/dev/null && echo "killed $victim (pid ${pid_of[$victim]}) at ${kill_at}s" >&2) &
	all_pids+=($!)
	killed=$victim
fi

status=0
for a in "${clients[@]}"; do
	if ! wait "${pid_of[$a]}"; then
		echo "run-multi-client.sh: client $a failed; $out/$a.err ends with:" >&2
		tail -3 "$out/$a.err" >&2
		status=1
	fi
done

# Stop the replicas cleanly (they write their applied logs on the way out)
# and report any that died on their own.
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	p=${pid_of[$alias]}
	if ! kill -0 "$p" 2>/dev/null; then
		if [ "$alias" != "$killed" ]; then
			echo "run-multi-client.sh: replica $alias died during the run; $out/$alias.log ends with:" >&2
			tail -3 "$out/$alias.log" >&2
			status=1
		fi
		continue
	fi
	kill -TERM "$p"
	wait "$p" || { echo "run-multi-client.sh: replica $alias exited with an error; see $out/$alias.log" >&2; status=1; }
done <<<"$hosts"

if ! "$bin" -run summary -config "$conf" -results "$out"; then
	status=1
fi
awk -v s="$start" -v e="$(date +%s.%N)" -v o="$out" 'BEGIN { printf "wall time: %.1f s; output in %s\n", e - s, o }'
exit $status
