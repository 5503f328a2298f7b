#!/usr/bin/env bash
# End-to-end test of the launcher's multi-host (SSH) mode on a test bed of
# network namespaces (scripts/netns-cluster.sh): 5 hosts (3 replicas, 2
# client processes) and the launcher in the control namespace.
#
#   1. the default workload with --check for each protocol: the launcher
#      must exit 0, summary.json must say errors 0, timeouts 0, check ran
#      and OK;
#   2. the same with --kill-leader-at 0.5 (the leader killed by its PID on
#      its host half a second after the clients start);
#   3. Ctrl-C in the middle of a longer run: SIGINT to the launcher's whole
#      process group (what a terminal's Ctrl-C sends) once both client
#      processes run on their hosts; then no process of the run may be
#      left in any namespace (only the sshd listeners), nor any run
#      directory on any host; every replica's log, copied back, must say
#      "replica stopped" (it was stopped by the launcher's TERM), and the
#      launcher must not have lost track of any process (an ssh that
#      ended before its process, one found still running at its very
#      end, one it had to kill).
#
# Opt-in and never part of CI: it needs root (namespaces, a bridge, sshd)
# and openssh-server, and runs only with SPX_NETNS_TEST=1 in the
# environment. It brings the cluster up and takes it down again (also on
# failure or interrupt). Output: $OUT (default results/netns-test-<time>).
#
#   SPX_NETNS_TEST=1 scripts/netns-test.sh [PROTOCOL...]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
if [ "${SPX_NETNS_TEST:-}" != 1 ]; then
	echo "netns-test.sh: opt-in; it needs root and builds network namespaces: run it as SPX_NETNS_TEST=1 $0" >&2
	exit 2
fi
[ "$(id -u)" = 0 ] || { echo "netns-test.sh: needs root (network namespaces, a bridge, sshd)" >&2; exit 2; }
protocols=("$@")
[ ${#protocols[@]} -gt 0 ] || protocols=(curpht curpho)
out=${OUT:-results/netns-test-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
cluster=scripts/netns-cluster.sh
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

$cluster up 5
trap '$cluster down' EXIT

# field FILE NAME: a top-level number or boolean of summary.json.
field() { awk -v k="\"$2\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }
check_field() { awk -v k="\"$2\":" '$1 == "\"check\":" { c = 1 } c && $1 == k { v = $2; sub(/,$/, "", v); print v; exit }' "$1"; }

# clean_run NAME ARGS...: one launcher run over SSH with --check; it must
# exit 0 with a clean summary.
clean_run() {
	local name=$1 rc=0 s e t ops ran ok
	shift
	$cluster ctl ./run-multi-client.sh --hosts -c scripts/netns.conf --check -o "$out/$name" "$@" >"$out/$name.txt" 2>&1 || rc=$?
	s="$out/$name/summary.json"
	if [ "$rc" != 0 ] || [ ! -f "$s" ]; then
		bad "$name: launcher exit $rc (see $out/$name.txt)"
		return
	fi
	e=$(field "$s" errors) t=$(field "$s" timeouts) ops=$(field "$s" ops)
	ran=$(check_field "$s" ran) ok=$(check_field "$s" ok)
	echo "$name: ops $ops, errors $e, timeouts $t, check ran $ran ok $ok; $(grep -h '^Throughput:' "$out/$name/summary.txt" | tr -s ' ')$(grep -h '^killed' "$out/$name.txt" | sed 's/^/; /' || true)"
	[ "$e" = 0 ] && [ "$t" = 0 ] && [ "$ran" = true ] && [ "$ok" = true ] || bad "$name: summary not clean ($s)"
}
for p in "${protocols[@]}"; do
	clean_run "$p" -p "$p"
done
for p in "${protocols[@]}"; do
	clean_run "$p-kill-leader" -p "$p" --kill-leader-at 0.5
	grep -q '^killed replica0' "$out/$p-kill-leader.txt" || bad "$p-kill-leader: the leader was not killed"
done

# Ctrl-C: a run long enough to be interrupted (60,000 operations per
# thread), started as a terminal starts a foreground job: in a process
# group of its own (job control on, set -m) and with SIGINT not ignored (a
# non-interactive shell starts its background jobs with SIGINT ignored,
# and bash cannot trap a signal ignored on entry); the interrupt then goes
# to the whole group, as a terminal's Ctrl-C does.
long="$out/netns-long.conf"
sed 's/^reqs:.*/reqs: 60000/' scripts/netns.conf >"$long"
set -m
ip netns exec spx-ctl env SSH_USER=spxbed SSH_OPTS="$($cluster env | sed -n "s/^SSH_OPTS='\(.*\)'$/\1/p")" \
	./run-multi-client.sh --hosts -c "$long" -o "$out/interrupted" >"$out/interrupted.txt" 2>&1 &
lpid=$!
set +m
# Wait (every 100 ms, at most 60 s) until both client processes run.
# grep reads all of its input: grep -q would stop at the first match and,
# under pipefail, the listing's SIGPIPE would fail the pipeline whenever
# the client is not the last process listed (PIDs wrap around).
running() { ip netns pids "$1" | while read -r p; do tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline"; echo; done | grep '^./swiftpaxos -run client' >/dev/null; }
for ((i = 0; ; i++)); do
	running spx-h4 && running spx-h5 && break
	kill -0 "$lpid" 2>/dev/null || { bad "interrupt: the launcher ended before the clients ran (see $out/interrupted.txt)"; break; }
	[ "$i" -lt 600 ] || { bad "interrupt: the clients did not start within 60 s"; break; }
	sleep 0.1
done
echo "before Ctrl-C:" >"$out/interrupt-pids.txt"
$cluster pids >>"$out/interrupt-pids.txt"
kill -INT -- "-$lpid" 2>/dev/null || true
lrc=0
wait "$lpid" || lrc=$?
echo "interrupt: launcher exit status $lrc (130 expected)"
[ "$lrc" = 130 ] || bad "interrupt: launcher exit status $lrc"
# Every process of the run must be gone from every namespace; sshd's
# per-connection processes may take a moment to exit after their
# connection closes (every 100 ms, at most 5 s).
for ((i = 0; ; i++)); do
	left=$($cluster pids | grep -v '\[listener\]' || true)
	[ -z "$left" ] && break
	[ "$i" -lt 50 ] || break
	sleep 0.1
done
{
	echo "after Ctrl-C:"
	$cluster pids
} >>"$out/interrupt-pids.txt"
if [ -n "$left" ]; then
	bad "interrupt: processes left behind:"
	echo "$left"
else
	echo "interrupt: no process left in any namespace (only the 5 sshd listeners; $out/interrupt-pids.txt)"
fi
dirs=$(find /tmp/spx-netns/h*/home -mindepth 2 -print 2>/dev/null || true)
[ -z "$dirs" ] || bad "interrupt: run directories left on the hosts: $dirs"
# Each replica was stopped by the launcher's TERM, not by the test bed's
# teardown: its log, copied back, holds the line a replica logs when it
# stops cleanly. And the launcher kept track of every process: no ssh
# that started one ended before it (the Ctrl-C must not reach them), and
# none was found still running at the launcher's end.
for r in $(./bin/swiftpaxos -run hosts -config scripts/netns.conf | awk '$1 == "replica" { print $2 }'); do
	grep -qF "$(printf '\treplica stopped\t')" "$out/interrupted/$r.log" 2>/dev/null ||
		bad "interrupt: $out/interrupted/$r.log has no 'replica stopped' line"
done
if grep -q 'ended before it\|at the end of the run: stopped it\|did not stop within 5 s' "$out/interrupted.txt"; then
	bad "interrupt: the launcher lost track of a process, or had to kill one:"
	grep 'ended before it\|at the end of the run: stopped it\|did not stop within 5 s' "$out/interrupted.txt"
fi

if [ "$fail" = 0 ]; then
	echo "netns-test: OK (output in $out)"
else
	echo "netns-test: FAILED (output in $out)"
fi
exit $fail
