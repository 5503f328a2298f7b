#!/usr/bin/env bash
# Runs a whole swiftpaxos deployment on this machine: every replica and
# client process of the configuration on its loopback address. Builds the
# binary when it is missing or stale, waits for the replicas by probing
# their ports, waits for the clients, and stops every process it started,
# by PID, on exit or interrupt. Exits non-zero when any process failed.
set -euo pipefail

usage() {
	cat <<USAGE
usage: ./run-multi-client.sh [-c CONF] [-o DIR] [-p PROTOCOL] [-h]

  -c CONF      configuration file (default: multi-client.conf)
  -o DIR       output directory for logs (default: results/<timestamp>)
  -p PROTOCOL  protocol, overriding the configuration (curpht, curpho)
  -h           this help
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
conf=multi-client.conf
out=""
proto=""
while [ $# -gt 0 ]; do
	case "$1" in
	-c) conf=${2:?-c needs a file}; shift 2 ;;
	-o) out=${2:?-o needs a directory}; shift 2 ;;
	-p) proto=${2:?-p needs a protocol}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-multi-client.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
done
[ -f "$conf" ] || { echo "run-multi-client.sh: no configuration file $conf" >&2; exit 2; }
[ -n "$out" ] || out="results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

bin="$here/bin/swiftpaxos"
if [ ! -x "$bin" ] || [ -n "$(find "$here" -name '*.go' -newer "$bin" -print -quit)" ] || [ "$here/go.mod" -nt "$bin" ]; then
	echo "building $bin"
	(cd "$here" && go build -o "$bin" .)
fi

protoflag=()
[ -z "$proto" ] || protoflag=(-protocol "$proto")

pids=()
names=()
cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

hosts=$("$bin" -run hosts -config "$conf")

# probe HOST PORT: succeeds once something accepts connections there.
probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

start=$(date +%s.%N)
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	"$bin" -run server -config "$conf" -alias "$alias" "${protoflag[@]}" -log "$out/$alias.log" &
	pids+=($!)
	names+=("$alias")
done <<<"$hosts"

# Wait for every replica to listen: probe each port, at most 200 times
# 25 ms apart (5 s), and fail fast if a replica process exits.
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	host=${addr%:*}
	port=${addr##*:}
	for ((i = 0; ; i++)); do
		probe "$host" "$port" && break
		idx=0
		for n in "${names[@]}"; do
			if [ "$n" = "$alias" ] && ! kill -0 "${pids[$idx]}" 2>/dev/null; then
				echo "run-multi-client.sh: $alias exited during start-up; its log ($out/$alias.log) says:" >&2
				tail -5 "$out/$alias.log" >&2
				exit 1
			fi
			idx=$((idx + 1))
		done
		if [ "$i" -ge 200 ]; then
			echo "run-multi-client.sh: $alias is not listening on $addr after 5 s" >&2
			exit 1
		fi
		sleep 0.025
	done
done <<<"$hosts"

cpids=()
cnames=()
while read -r role alias addr; do
	[ "$role" = client ] || continue
	"$bin" -run client -config "$conf" -alias "$alias" "${protoflag[@]}" -log "$out/$alias.log" -results "$out/results-$alias.json" >"$out/$alias.out" 2>"$out/$alias.err" &
	cpids+=($!)
	cnames+=("$alias")
	pids+=($!)
done <<<"$hosts"

status=0
for i in "${!cpids[@]}"; do
	if ! wait "${cpids[$i]}"; then
		echo "run-multi-client.sh: client ${cnames[$i]} failed:" >&2
		tail -5 "$out/${cnames[$i]}.err" >&2
		status=1
	fi
done
end=$(date +%s.%N)

for a in "${cnames[@]}"; do
	echo "== $a"
	cat "$out/$a.out"
done
awk -v s="$start" -v e="$end" -v o="$out" 'BEGIN { printf "wall time: %.1f s; logs in %s\n", e - s, o }'
exit $status
