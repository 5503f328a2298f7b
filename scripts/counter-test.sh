#!/usr/bin/env bash
# Counter test on real processes (issue 29): S sessions each run N strong
# INCRs of one key through `swiftpaxos -run kv` (one kv process reading N
# lines `incr KEY 1` from standard input = one session), while the leader
# is killed (kill -9) when about half of the INCRs are done, and restarted
# a moment later (in memory, without -cluster new: it comes back empty and
# catches up). The key must end at exactly S x N, and every INCR must have
# succeeded exactly once:
#   - every kv process exits 0, prints N lines and nothing on stderr;
#   - each session's results increase strictly (a session's INCRs are
#     ordered), and the S x N results of all sessions together are exactly
#     1 .. S x N, each once (an INCR applied twice, or lost, leaves a gap
#     or a repeat);
#   - a strong `get KEY` after the sessions prints S x N.
#
#   scripts/counter-test.sh [-p curpht|curpho] [-s SESSIONS] [-n INCRS]
#                           [-k KEY] [-r DOWN|--no-restart] [-o DIR] [--keep]
#
# Defaults: -p curpht, 4 sessions, 5000 INCRs each, key "counter", the
# leader restarted 1 s after the kill (-r 1), a temporary directory that is
# removed when the test passes (kept, and named, when it fails or with
# --keep; -o DIR keeps everything in DIR). The three replicas listen on
# 127.0.0.1, three consecutive ports from a random base in 20000-31999
# (below Linux's default ephemeral range, checked unused with ss: no
# socket of any state on them), in a configuration the test writes
# (DIR/conf). The leader is killed once the sessions have printed half of
# the S x N results (polled every 20 ms). It uses bin/swiftpaxos, built first when it
# is missing or older than go.mod or a Go source file ($BIN overrides the
# binary and skips the build). Every process it starts is stopped by its
# PID on exit. Exit status: 0 passed, 1 failed, 2 usage.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
protocol=curpht
sessions=4
incrs=5000
key=counter
down=1
out=""
keep=false
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case "$1" in
	-p) protocol=${2:-}; shift 2 || { echo "counter-test.sh: -p needs a protocol" >&2; exit 2; } ;;
	-s) sessions=${2:-}; shift 2 || { echo "counter-test.sh: -s needs a number" >&2; exit 2; } ;;
	-n) incrs=${2:-}; shift 2 || { echo "counter-test.sh: -n needs a number" >&2; exit 2; } ;;
	-k) key=${2:-}; shift 2 || { echo "counter-test.sh: -k needs a key" >&2; exit 2; } ;;
	-r) down=${2:-}; shift 2 || { echo "counter-test.sh: -r needs seconds" >&2; exit 2; } ;;
	--no-restart) down=""; shift ;;
	-o) out=${2:-}; shift 2 || { echo "counter-test.sh: -o needs a directory" >&2; exit 2; }; keep=true ;;
	--keep) keep=true; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "counter-test.sh: unknown argument $1 (-h for the usage)" >&2; exit 2 ;;
	esac
done
case "$protocol" in curpht | curpho) ;; *) echo "counter-test.sh: unknown protocol '$protocol' (curpht or curpho)" >&2; exit 2 ;; esac
[[ "$sessions" =~ ^[1-9][0-9]*$ ]] || { echo "counter-test.sh: -s needs a positive number" >&2; exit 2; }
[[ "$incrs" =~ ^[1-9][0-9]*$ ]] || { echo "counter-test.sh: -n needs a positive number" >&2; exit 2; }
[[ "$key" =~ ^[A-Za-z0-9:_.-]+$ ]] || { echo "counter-test.sh: -k takes a plain key ([A-Za-z0-9:_.-])" >&2; exit 2; }
[ -z "$down" ] || [[ "$down" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "counter-test.sh: -r needs seconds" >&2; exit 2; }
total=$((sessions * incrs))

# The binary: as run-multi-client.sh, built when missing or stale.
if [ -n "${BIN:-}" ]; then
	bin=$BIN
else
	bin="$here/bin/swiftpaxos"
	if [ ! -x "$bin" ] || [ -n "$(find "$here" -path "$here/scripts/netem" -prune -o \( -name '*.go' -o -name go.mod \) -newer "$bin" -print -quit)" ]; then
		echo "building $bin"
		(cd "$here" && go build -o bin/swiftpaxos .)
	fi
fi

if [ -n "$out" ]; then
	mkdir -p "$out"
	dir=$(cd "$out" && pwd)
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/counter-test.XXXXXX")
fi

declare -A live # the processes started and not yet waited for, stopped by PID on exit
passed=false
reap() { wait "$1" 2>/dev/null || true; unset "live[$1]"; }
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	local p
	for p in "${!live[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for _ in $(seq 20); do
		local any=false
		for p in "${!live[@]}"; do kill -0 "$p" 2>/dev/null && any=true; done
		$any || break
		sleep 0.1
	done
	for p in "${!live[@]}"; do kill -KILL "$p" 2>/dev/null || true; reap "$p"; done
	if $passed && ! $keep; then
		rm -rf "$dir"
	else
		echo "files: $dir"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
fail() { echo "FAIL: $*"; exit 1; }

# Three consecutive ports on 127.0.0.1 that no socket uses, in any state.
port_free() { [ -z "$(ss -Htan "sport = :$1" 2>/dev/null)" ]; }
base=""
for _ in $(seq 50); do
	b=$((20000 + RANDOM % 12000))
	if port_free "$b" && port_free $((b + 1)) && port_free $((b + 2)); then
		base=$b
		break
	fi
done
[ -n "$base" ] || fail "no three consecutive free ports found"

conf="$dir/conf"
cat >"$conf" <<EOF
// counter-test.sh: 3 replicas on loopback
-- Replicas --
replica0 127.0.0.1:$base
replica1 127.0.0.1:$((base + 1))
replica2 127.0.0.1:$((base + 2))
---
protocol: $protocol
EOF

kv() { "$bin" -run kv -config "$conf" "$@"; }

declare -A rpid
start_replica() { # ALIAS [FLAGS...]
	local a=$1
	shift
	"$bin" -run server -config "$conf" -alias "$a" "$@" >>"$dir/$a.out" 2>>"$dir/$a.err" &
	rpid[$a]=$!
	live[$!]=1
}

echo "counter test: $protocol, $sessions sessions x $incrs strong INCRs of '$key', replicas on 127.0.0.1:$base-$((base + 2)), files in $dir"
for r in replica0 replica1 replica2; do
	start_replica "$r" -cluster new -log "$dir/$r.log"
done

# Wait for a leader: a strong get of the key answers "not found".
t0=$(now)
until kv -timeout 2s get "$key" >"$dir/ready.out" 2>"$dir/ready.err" || grep -q 'not found' "$dir/ready.err"; do
	awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 30) }' && { cat "$dir/ready.err"; fail "no leader within 30 s"; }
	sleep 0.2
done
[ ! -s "$dir/ready.out" ] || fail "$key already holds $(cat "$dir/ready.out") in a new cluster"
"$bin" -run status -config "$conf" >"$dir/status-before.txt" 2>&1 || true
leader=$(awk '$3 == "leader" { print $1; exit }' "$dir/status-before.txt")
[ -n "$leader" ] || leader=replica0
echo "cluster ready in $(since "$t0") s, leader $leader"

awk -v n="$incrs" -v k="$key" 'BEGIN { for (i = 0; i < n; i++) print "incr " k " 1" }' >"$dir/in.txt"

# The sessions.
t0=$(now)
kvpids=()
for ((i = 0; i < sessions; i++)); do
	# Created here, not by the background job's redirection, which the
	# count below could otherwise run before.
	: >"$dir/kv$i.out"
	kv -log "$dir/kv$i.log" <"$dir/in.txt" >"$dir/kv$i.out" 2>"$dir/kv$i.err" &
	kvpids+=("$!")
	live[$!]=1
done

# Kill the leader when half of the INCRs are done (lines printed).
done_lines() { cat "$dir"/kv*.out | wc -l; }
killed_at=""
while :; do
	d=$(done_lines)
	if [ "$d" -ge $((total / 2)) ]; then
		kill -9 "${rpid[$leader]}"
		reap "${rpid[$leader]}"
		killed_at=$(since "$t0")
		echo "killed $leader (kill -9, pid ${rpid[$leader]}) at ${killed_at} s, $d of $total INCRs done"
		echo "$(date +%s%3N) killed $leader after $d INCRs" >>"$dir/events.txt"
		break
	fi
	alive=false
	for p in "${kvpids[@]}"; do kill -0 "$p" 2>/dev/null && alive=true; done
	$alive || break
	sleep 0.02
done
[ -n "$killed_at" ] || fail "the sessions ended before half of the INCRs were done ($(done_lines) lines): nothing was killed"

if [ -n "$down" ]; then
	sleep "$down"
	start_replica "$leader" -log "$dir/$leader.2.log" # a restart: not -cluster new
	echo "restarted $leader at $(since "$t0") s (in memory, without -cluster new), $(done_lines) of $total INCRs done"
	echo "$(date +%s%3N) restarted $leader" >>"$dir/events.txt"
fi

status=0
for ((i = 0; i < sessions; i++)); do
	rc=0
	wait "${kvpids[$i]}" || rc=$?
	unset "live[${kvpids[$i]}]"
	echo "session $i: exit $rc, $(wc -l <"$dir/kv$i.out") lines, $(wc -l <"$dir/kv$i.err") lines on stderr"
	if [ "$rc" != 0 ] || [ -s "$dir/kv$i.err" ]; then
		status=1
		sed 's/^/    /' "$dir/kv$i.err" | head -5
	fi
done
echo "sessions done in $(since "$t0") s ($(awk -v t="$(since "$t0")" -v n="$total" 'BEGIN { printf "%.0f", n / t }') INCR/s)"

# Every result is a number; each session's increase; all together are 1..total.
for ((i = 0; i < sessions; i++)); do
	if ! awk -v n="$incrs" '
		!/^-?[0-9]+$/ { print "    line " NR ": not a number: " $0; bad = 1; next }
		NR > 1 && $1 + 0 <= last { print "    line " NR ": " $1 " after " last ": not increasing"; bad = 1 }
		{ last = $1 + 0 }
		END { if (NR != n) { print "    " NR " results, not " n; bad = 1 } exit bad }' "$dir/kv$i.out"; then
		echo "session $i: results wrong"
		status=1
	fi
done
if ! cat "$dir"/kv*.out | awk -v n="$total" '
	/^-?[0-9]+$/ { c[$1 + 0]++ }
	END {
		for (v in c) if (c[v] > 1) { print "    result " v " returned " c[v] " times"; if (++shown > 5) break }
		for (v = 1; v <= n; v++) if (!(v in c)) { if (++gaps <= 5) print "    result " v " never returned"; bad = 1 }
		for (v in c) if (c[v] > 1 || v + 0 < 1 || v + 0 > n) bad = 1
		if (gaps > 5) print "    ... " gaps " results never returned"
		exit bad
	}'; then
	echo "the INCRs' results are not exactly 1..$total, each once"
	status=1
fi

# The final value, by a strong read (a new session).
rc=0
final=$(kv get "$key" 2>"$dir/final.err") || rc=$?
echo "final: get $key = ${final:-(none)} (exit $rc; expected $total)"
[ "$rc" = 0 ] || { sed 's/^/    /' "$dir/final.err"; status=1; }
[ "$final" = "$total" ] || status=1
"$bin" -run status -config "$conf" >"$dir/status-after.txt" 2>&1 || true
sed 's/^/    /' "$dir/status-after.txt"

if [ "$status" = 0 ]; then
	passed=true
	echo "PASS: $protocol, $key = $total after the leader's kill"
else
	echo "FAIL: $protocol (see $dir)"
fi
exit "$status"
