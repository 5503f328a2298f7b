#!/usr/bin/env bash
# Runs a whole swiftpaxos deployment: every replica and client process of
# the configuration, on its loopback address (the default) or, with
# --hosts, on the host its address names, reached over SSH. It builds the
# binary when it is missing or stale, waits for the replicas by probing
# their ports, runs the clients, stops the replicas, merges the results
# into DIR/summary.json and DIR/summary.txt (printed), and stops every
# process it started, by PID, on exit or interrupt. While the clients run
# it shows one progress line on the terminal; interrupted then, it stops
# the clients and writes a partial summary marked interrupted. It exits
# non-zero when any process failed, any operation errored or timed out,
# or the check failed (130 when interrupted).
set -euo pipefail

usage() {
	cat <<USAGE
usage: ./run-multi-client.sh [-c CONF] [-o DIR] [-p PROTOCOL] [-t THREADS]
           [--check] [--tls] [--loglevel LEVEL] [--metrics] [--profile]
           [--kill-leader-at S | --kill-follower-at S]
           [--restart-follower-at S[:DOWN]] [--crash-all-at S[:DOWN]]
           [--sample-rss S] [--hosts] [--proxy] [--partition-leader-at S[:DUR]]
           [--partition-from replicas|clients|all] [--partition-mode hold|close]
           [--nemesis KINDS [--nemesis-every D] [--nemesis-seed S]] [-h]

  -c CONF                  configuration file (default: multi-client.conf)
  -o DIR                   output directory (default: results/<timestamp>,
                           -r2, -r3... for a run started in the same second)
  -p PROTOCOL              protocol, overriding the configuration (curpht, curpho)
  -t THREADS               sessions per client process, overriding clientThreads
  --check                  unique values, record histories and applied logs,
                           and check the run (PROTOCOL.md 2.6)
  --tls                    mutual TLS on every connection: creates a test CA
                           and certificates for the configuration in DIR/tls
                           (swiftpaxos -run certs) and runs every process
                           with -tls; a configuration with tls: DIR uses its
                           own certificates without --tls
  --kill-leader-at SECONDS kill -9 the initial leader (the first replica, or
                           the one a cluster restarted from its dataDir
                           elected) that many seconds after the clients start
  --kill-follower-at SECONDS
                           kill -9 the last replica of the configuration
                           that is not the initial leader instead (a run
                           kills one replica: not with --kill-leader-at)
  --restart-follower-at S[:DOWN]
                           kill -9 the follower (as --kill-follower-at) S
                           seconds after the clients start and start it again
                           DOWN seconds later (default 1) with the same alias
                           and arguments (with --check,
                           a new applied log: log-ALIAS.2.jsonl); summary.json
                           says when it was a witness again ("restart"); the
                           run must last past S + DOWN (scripts/restart.conf)
  --crash-all-at S[:DOWN]  kill -9 every replica S seconds after the clients
                           start and start them all again DOWN seconds later
                           (default 2), with the same aliases and arguments,
                           from their data directories (with --check, new
                           applied logs: log-ALIAS.2.jsonl, from each
                           replica's snapshot on); the clients keep retrying;
                           summary.json says when the cluster was down and
                           when the first operation completed after
                           ("outage"). Needs dataDir: refused without
  --sample-rss S           every S seconds, record each replica's resident
                           memory (VmRSS) in DIR/rss.csv (unix_ms,alias,
                           rss_kb), following a restarted replica; draw it
                           with go run ./scripts/plot -memory DIR -out PNGDIR
                           (a run of 10 s or more); not with --hosts
  --loglevel LEVEL         log level of every process (debug, info, warn, error)
  --metrics                every process serves Prometheus metrics and
                           /debug/pprof/ over HTTP on its own address, ports
                           from \$METRICS_PORT (default 9400) up, one per
                           process in the configuration's order; the URLs
                           are printed at the start
  --profile                each process writes a CPU profile of its whole
                           run to DIR/ALIAS.cpu.pprof (go tool pprof
                           bin/swiftpaxos DIR/replica0.cpu.pprof)
  --hosts                  run every process on the host its address names,
                           over SSH (see "Multi-host mode" below)
  --proxy                  route every replica-replica and client-replica
                           connection through toxiproxy, with the
                           configuration's latency (networkDelay, latencyFile,
                           co-location) as latency toxics instead of the
                           built-in emulation (needs Go; the toxiproxy API
                           listens on 127.0.0.1:\$TOXIPROXY_PORT, default
                           8474; with --hosts the proxies run on this machine,
                           listening on \$PROXY_IP, which every host must reach)
  --partition-leader-at S[:DUR]
                           with the proxies: S seconds after the clients
                           start, cut the initial leader (as --kill-leader-at)
                           off for DUR seconds (default 3), then heal (implies
                           --proxy; not with --kill-leader-at)
  --partition-from WHAT    with --partition-leader-at, what the leader is cut
                           off from: replicas (the default), clients, or all
  --partition-mode MODE    with --partition-leader-at: hold (the default: the
                           links go silent and deliver what they held at the
                           heal, as TCP does across a partition) or close
                           (connections are closed and reconnections refused
                           until the heal)
  --nemesis KINDS          throw a seeded mix of faults at the run, drawn
                           from KINDS (comma-separated): kill (kill -9 a
                           replica, the leader or another as drawn; with
                           restart, started again after a drawn delay,
                           rejoining empty in memory or from its disk
                           when durable; without, down for good), wipe
                           (durable only: kill -9 a replica, empty its
                           data directory, start it again: it rejoins
                           empty), pause
                           (SIGSTOP a replica, SIGCONT it later),
                           partition (through the proxies, implying
                           --proxy: isolate a replica, cut the leader off
                           from the replicas, or hold what one replica
                           sends another), crash-all (durable only: kill
                           -9 every replica, start them all again) and
                           client (kill -9 a client process; with
                           --check, its history survives as a journal,
                           its unfinished operations indeterminate).
                           At most f replicas are impaired at once (a
                           restarted one until it is a member again),
                           every fault heals before the last tenth of
                           runTime (needed), and the plan is in
                           DIR/nemesis-plan.txt, what happened in
                           events.txt, the decisions in nemesis.log;
                           summary.json lists the faults ("nemesis")
                           and the availability around them; draw the
                           chart with go run ./scripts/plot -timeline
                           DIR -out PNGDIR. See docs/FAULTS.md
  --nemesis-every D        mean time between faults, a Go duration
                           (default 5s, at least 500ms)
  --nemesis-seed S         the seed of the draw (default: a random one,
                           printed): the same seed, kinds, interval and
                           configuration replay the same plan
  -h                       this help

A run has at most one of --kill-leader-at, --kill-follower-at,
--restart-follower-at and --crash-all-at, each given once, and none of
them (nor --partition-leader-at) with --nemesis.

While the clients run, a terminal shows one progress line, updated every
second from the clients' own (ALIAS.err): operations done of the total
(seconds of runTime instead when it is set), the current rate and the
failed operations. Ctrl-C then stops the clients, which save what they
measured, and writes summary.json and summary.txt from it, marked
interrupted; a second Ctrl-C, or one before the clients start, stops
everything at once.

On one machine each process runs with GOMAXPROCS set to its share of the
cores, rounded up (5 processes on 2 cores: 1 each), unless GOMAXPROCS is
set in the environment; the launcher prints the value it chose.

Output in DIR: summary.txt, summary.json, per-process logs (ALIAS.log)
and stderr (ALIAS.err: a client's progress, a replica's error or crash
trace), both lifetimes of a restarted replica in the same files, client
outputs (ALIAS.out), raw results (results-ALIAS.json), what each replica
spent (cost-ALIAS.json, cost-ALIAS.2.json after a restart: merged into the
summary's cost with the clients' results), the kills and restarts
(events.txt: UNIX_MS killed|restarted ALIAS, and a nemesis's faults:
UNIX_MS begin ID KIND TARGET DETAIL, UNIX_MS end ID, UNIX_MS skipped
ID KIND), and with --check the histories and applied logs
(log-ALIAS.jsonl, and log-ALIAS.N.jsonl for a restarted replica's N-th
lifetime); with --nemesis the plan (nemesis-plan.txt), the runner's
decisions (nemesis.log) and a killed client's journal
(journal-ALIAS.jsonl); with --proxy the proxy
plan and per-process configurations (netem/) and toxiproxy.log; with
--tls the certificates (tls/); with a relative dataDir the replicas'
data (DATADIR/ALIAS: every run starts a brand-new cluster of its own; an
absolute dataDir is used as it is, and may hold an earlier cluster).

Multi-host mode (--hosts): the binary (built for linux/\$REMOTE_GOARCH,
default this machine's architecture, without cgo), the configuration and
its latency file are copied once per host with scp into
\$REMOTE_DIR/<run>/<host> (REMOTE_DIR defaults to swiftpaxos-runs, relative
to the remote home); every process is started there in the background with
its PID in ALIAS.pid, stopped by that PID, and its files are copied back
into DIR; the remote run directory is removed afterwards unless
KEEP_REMOTE=1. SSH_USER, SSH_PORT and SSH_OPTS (extra ssh/scp options,
e.g. "-i KEY -o UserKnownHostsFile=FILE") set how hosts are reached; the
launcher needs neither root nor a shared file system on them.
USAGE
}

here=$(cd "$(dirname "$0")" && pwd)
conf=multi-client.conf
out=""
extra=()
check=0
tls=0
profile=0
metrics=0
kill_at=""
restart_at=""
restart_down=1
crash_at=""
crash_down=2
multi=0
proxy=0
part_at=""
part_dur=3
part_from=replicas
part_mode=hold
rss_every=""
nemesis=""
nem_every=5s
nem_seed=""
# usage_error MESSAGE: a wrong command line, exit status 2.
usage_error() {
	echo "run-multi-client.sh: $1" >&2
	exit 2
}
# need FLAG WHAT VALUE: FLAG must be followed by a value (not by another
# flag).
need() {
	[ -n "$3" ] && [[ "$3" != -* ]] || usage_error "$1 needs $2"
}
# given[FLAG]: the fault flags seen; a second value would silently
# replace the first, so each may be given once.
declare -A given=()
once() {
	[ -z "${given[$1]:-}" ] || usage_error "$1 is given twice"
	given[$1]=1
}
while [ $# -gt 0 ]; do
	case "$1" in
	-c) need "$1" "a file" "${2:-}"; conf=$2; shift 2 ;;
	-o) need "$1" "a directory" "${2:-}"; out=$2; shift 2 ;;
	-p) need "$1" "a protocol" "${2:-}"; extra+=(-protocol "$2"); shift 2 ;;
	-t) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage_error "-t needs a positive number"
		threads=$2; shift 2 ;;
	--check) check=1; extra+=(-check); shift ;;
	--tls) tls=1; shift ;;
	--profile) profile=1; shift ;;
	--metrics) metrics=1; shift ;;
	--loglevel) need "$1" "a level" "${2:-}"; loglevel=$2; extra+=(-loglevel "$loglevel"); shift 2 ;;
	--kill-leader-at | --kill-follower-at)
		once "$1"
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage_error "$1 needs seconds"
		kill_at=$2; kill_which=${1#--kill-}; kill_which=${kill_which%-at}; shift 2 ;;
	--restart-follower-at)
		once "$1"
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?(:[0-9]+(\.[0-9]+)?)?$ ]] || usage_error "$1 needs S or S:DOWN (seconds)"
		restart_at=${2%%:*}; [[ "$2" != *:* ]] || restart_down=${2#*:}; shift 2 ;;
	--crash-all-at)
		once "$1"
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?(:[0-9]+(\.[0-9]+)?)?$ ]] || usage_error "$1 needs S or S:DOWN (seconds)"
		crash_at=${2%%:*}; [[ "$2" != *:* ]] || crash_down=${2#*:}; shift 2 ;;
	--sample-rss)
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [[ ! "$2" =~ ^0+(\.0+)?$ ]] || usage_error "$1 needs a positive number of seconds"
		rss_every=$2; shift 2 ;;
	--hosts) multi=1; shift ;;
	--proxy) proxy=1; shift ;;
	--partition-leader-at)
		once "$1"
		[[ "${2:-}" =~ ^[0-9]+(\.[0-9]+)?(:[0-9]+(\.[0-9]+)?)?$ ]] || usage_error "$1 needs S or S:DUR (seconds)"
		part_at=${2%%:*}; [[ "$2" != *:* ]] || part_dur=${2#*:}; proxy=1; shift 2 ;;
	--partition-from)
		once "$1"
		[[ "${2:-}" =~ ^(replicas|clients|all)$ ]] || usage_error "$1 needs replicas, clients or all"
		part_from=$2; shift 2 ;;
	--partition-mode)
		once "$1"
		[[ "${2:-}" =~ ^(hold|close)$ ]] || usage_error "$1 needs hold or close"
		part_mode=$2; shift 2 ;;
	--nemesis)
		once "$1"
		[[ "${2:-}" =~ ^[a-z-]+(,[a-z-]+)*$ ]] || usage_error "$1 needs fault kinds, comma-separated (kill, restart, wipe, pause, partition, crash-all, client)"
		nemesis=$2; [[ ",$2," != *,partition,* ]] || proxy=1; shift 2 ;;
	--nemesis-every)
		once "$1"
		[[ "${2:-}" =~ ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$ ]] || usage_error "$1 needs a duration (500ms, 5s, 1m30s)"
		nem_every=$2; shift 2 ;;
	--nemesis-seed)
		once "$1"
		[[ "${2:-}" =~ ^[0-9]+$ ]] || usage_error "$1 needs a seed, a non-negative integer"
		nem_seed=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "run-multi-client.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
done
[ -f "$conf" ] || usage_error "no configuration file $conf"
# One fault per replica: a run kills one replica, restarts one, or
# crashes them all, and a leader that is killed is not also cut off (its
# kill report would time a failover the partition had already begun).
if [ -n "${given[--kill-leader-at]:-}" ] && [ -n "${given[--kill-follower-at]:-}" ]; then
	usage_error "--kill-leader-at and --kill-follower-at cannot be combined: a run kills one replica"
fi
if [ -n "$kill_at" ] && [ -n "$restart_at" ]; then
	usage_error "--restart-follower-at and --kill-$kill_which-at cannot be combined"
fi
if [ -n "$crash_at" ] && { [ -n "$kill_at" ] || [ -n "$restart_at" ]; }; then
	usage_error "--crash-all-at cannot be combined with --kill-*-at or --restart-follower-at"
fi
if [ -n "$part_at" ] && [ "${kill_which:-}" = leader ]; then
	usage_error "--partition-leader-at and --kill-leader-at cannot be combined: both take the initial leader"
fi
if [ -z "$part_at" ]; then
	for f in --partition-from --partition-mode; do
		[ -z "${given[$f]:-}" ] || usage_error "$f needs --partition-leader-at (it says how the leader is cut off)"
	done
fi
if [ -n "$nemesis" ]; then
	for f in --kill-leader-at --kill-follower-at --restart-follower-at --crash-all-at --partition-leader-at; do
		[ -z "${given[$f]:-}" ] || usage_error "$f cannot be combined with --nemesis, which draws its own faults (kinds kill, restart, crash-all, partition)"
	done
	[ "$multi" = 0 ] || usage_error "--nemesis runs on this machine only: it cannot be combined with --hosts"
else
	for f in --nemesis-every --nemesis-seed; do
		[ -z "${given[$f]:-}" ] || usage_error "$f needs --nemesis (it shapes the nemesis's plan)"
	done
fi
if [ "$multi" = 1 ] && [ -n "$rss_every" ]; then
	usage_error "--sample-rss reads /proc on this machine; it cannot be combined with --hosts"
fi
if [ "$multi" = 1 ] && [ "$proxy" = 1 ] && [ -z "${PROXY_IP:-}" ]; then
	usage_error "--proxy with --hosts needs PROXY_IP, an address of this machine that every host reaches (the proxies run here)"
fi
if [ -z "$out" ]; then
	# The default is the start's second, with the next free suffix for
	# runs started within the same second, so that no two runs share a
	# directory: mkdir claims it or fails.
	mkdir -p results
	out="results/$(date +%Y%m%d-%H%M%S)"
	n=2
	until mkdir "$out" 2>/dev/null; do out="${out%-r*}-r$n"; n=$((n + 1)); done
fi
if [ -e "$out" ] && [ ! -d "$out" ]; then
	usage_error "output directory $out is not a directory"
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	usage_error "output directory $out is not empty"
fi
mkdir -p "$out"

# stale BIN: a source file of the binary (not a test, not a script's own
# Go code) is newer than BIN, or BIN is missing.
stale() {
	[ ! -x "$1" ] || [ "$here/go.mod" -nt "$1" ] ||
		[ -n "$(find "$here" -path "$here/scripts" -prune -o -path "$here/results" -prune -o -name '*.go' ! -name '*_test.go' -newer "$1" -print -quit)" ]
}
bin="$here/bin/swiftpaxos"
if stale "$bin"; then
	echo "building $bin"
	(cd "$here" && go build -o "$bin" .)
fi

hosts=$("$bin" -run hosts -config "$conf")
# checkerMode / check: true in the file means the same as --check.
if grep -q '^option check true$' <<<"$hosts" && [ "$check" = 0 ]; then
	check=1
	extra+=(-check)
fi
# tls_dir: the certificates of the run, made here with --tls or named by
# the file's tls key. Every process gets it as -tls, so that it holds
# behind the proxies too (their per-process configurations live in
# another directory, which a relative tls path would follow).
tls_dir=$(awk '$1 == "option" && $2 == "tls" { sub(/^option tls /, ""); print; exit }' <<<"$hosts")
# dataDir: durable replicas keep their files in DIR/ALIAS across the run.
# A relative dataDir belongs to the run: every replica gets -data
# OUT/DATADIR (data_rel), so that each run starts a brand-new cluster of
# its own and none writes next to the configuration, in the checkout (a
# whole-cluster crash run writes about 100 MB). An absolute one names a
# place kept across runs (a cluster to restart, a file system to
# measure) and is used as it is. A run with --check needs a brand-new
# cluster (a log left by an earlier run holds commands this run's
# histories do not know).
# conf_value KEY FILE prints the value of the key line KEY (lower case),
# written "key: value" or "key:value", as the parser reads both.
conf_value() {
	awk -v k="$1:" '{ f = tolower($1) } f == k { print $2; exit } index(f, k) == 1 && length(f) > length(k) { print substr($1, length(k) + 1); exit }' "$2"
}
data_dir=$(awk '$1 == "option" && $2 == "data" { sub(/^option data /, ""); print; exit }' <<<"$hosts")
data_rel=""
if [ -n "$data_dir" ]; then
	data_rel=$(conf_value datadir "$conf")
	case "$data_rel" in
	"" | /*) data_rel="" ;;
	*) data_dir="$(cd "$out" && pwd)/$data_rel" ;;
	esac
fi
if [ -n "$crash_at" ] && [ -z "$data_dir" ]; then
	echo "run-multi-client.sh: --crash-all-at needs durable replicas (dataDir in the configuration): in memory, a whole-cluster crash loses everything" >&2
	exit 2
fi
if [ -n "$data_dir" ] && [ -d "$data_dir" ] && [ -n "$(ls -A "$data_dir")" ]; then
	if [ "$check" = 1 ]; then
		echo "run-multi-client.sh: dataDir $data_dir is not empty: a checked run starts a brand-new cluster (remove it, or use another dataDir)" >&2
		exit 2
	fi
	echo "note: dataDir $data_dir holds an earlier cluster's state: the replicas start from it (a replica refuses another cluster's, docs/DECISIONS.md 33)" >&2
fi
# --nemesis: the plan is drawn now, so that a bad kind or a
# configuration it cannot run on (no runTime, wipe or crash-all in memory) is
# refused before any process starts. bin/nemesis is built from
# scripts/nemesis (Go's cache makes an unchanged build quick).
if [ -n "$nemesis" ]; then
	nembin="$here/bin/nemesis"
	(cd "$here" && go build -o "$nembin" ./scripts/nemesis)
	[ -n "$nem_seed" ] || nem_seed=$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')
	nem_args=(-config "$conf" -kinds "$nemesis" -every "$nem_every" -seed "$nem_seed")
	if ! "$nembin" plan "${nem_args[@]}" >"$out/nemesis-plan.txt" 2>"$out/nemesis.log"; then
		echo "run-multi-client.sh: --nemesis: $(sed 's/^nemesis: //' "$out/nemesis.log")" >&2
		exit 2
	fi
	echo "nemesis: seed $nem_seed, $(sed -n 's/^# \([0-9]* faults\)/\1/p' "$out/nemesis-plan.txt") (the plan: $out/nemesis-plan.txt)" >&2
fi
if [ "$tls" = 1 ]; then
	tls_dir="$(cd "$out" && pwd)/tls"
	"$bin" -run certs -config "$conf" -out "$tls_dir" >/dev/null
fi

# host_of ADDR: the host part of "ip", "ip:port" or "[v6]:port".
host_of() {
	local a=$1
	case "$a" in
	\[*) a=${a#\[}; a=${a%%\]*} ;;
	*:*:*) ;;
	*:*) a=${a%:*} ;;
	esac
	printf '%s\n' "$a"
}

declare -A pid_of job_of host_for
all_pids=()
rhosts=()        # distinct hosts of the processes, in order (multi-host mode)
run_id="$(date +%Y%m%d-%H%M%S)-$$"
rdir_base="${REMOTE_DIR:-swiftpaxos-runs}/$run_id"
collected=0
remote_done=0    # every remote process was waited for and its files collected

# ---- multi-host helpers (SSH) ----
# shellcheck disable=SC2206 # SSH_OPTS is a list of options on purpose
ssh_opts=(-o BatchMode=yes -o ConnectTimeout=10 ${SSH_OPTS:-})
ssh_target() { if [ -n "${SSH_USER:-}" ]; then printf '%s@%s' "$SSH_USER" "$1"; else printf '%s' "$1"; fi; }
# on HOST CMD: runs the shell command CMD on HOST, stdin closed.
on() {
	local h=$1
	shift
	ssh -n "${ssh_opts[@]}" ${SSH_PORT:+-p "$SSH_PORT"} "$(ssh_target "$h")" "$@"
}
rdir() { printf '%s/%s' "$rdir_base" "$1"; }
q() { printf '%q' "$1"; }

# stop_script FILES: a POSIX shell script, run in a remote run directory,
# that stops the processes named by the PID files FILES (a pattern): TERM
# to every one still running, KILL to whatever still runs 5 s later. It
# prints "TERM ALIAS" and "KILL ALIAS" for each signal it sent, and exits
# 3 when no process was running.
stop_script() {
	cat <<EOS
live() {
	for f in $1; do
		[ -f "\$f" ] && p=\$(cat "\$f" 2>/dev/null) && kill -0 "\$p" 2>/dev/null && a=\${f#./} && echo "\$p \${a%.pid}"
	done
	return 0
}
l=\$(live)
[ -n "\$l" ] || exit 3
echo "\$l" | while read -r p a; do echo "TERM \$a"; done
kill -TERM \$(echo "\$l" | cut -d' ' -f1) 2>/dev/null
i=0
while [ \$i -lt 50 ]; do
	l=\$(live)
	[ -n "\$l" ] || exit 0
	sleep 0.1
	i=\$((i + 1))
done
echo "\$l" | while read -r p a; do echo "KILL \$a"; done
kill -KILL \$(echo "\$l" | cut -d' ' -f1) 2>/dev/null
exit 0
EOS
}

# remote_stop HOST: stops every process of this run still running on HOST
# by the PID files (stop_script), and makes sure none starts afterwards (a
# STOP file that the start wrapper looks at after writing its PID file, so
# a process being started concurrently is stopped by one side or the
# other). Prints "TERM ALIAS" / "KILL ALIAS" for each process it stopped.
remote_stop() {
	on "$1" "cd $(q "$(rdir "$1")") 2>/dev/null || exit 0
touch STOP
( $(stop_script './*.pid') ) || [ \$? = 3 ]" || echo "run-multi-client.sh: could not stop the processes on $1 (see $(rdir "$1")/*.pid there)" >&2
}

# stop_hosts [end]: remote_stop on every host at once, saying which
# process had to be killed. With "end" (the run's own end, where nothing
# should be left: a process whose ssh ended early, a replica a fault job
# restarted) it also says which were still running. No process outlives
# the run, and every log is complete when collected.
stop_hosts() {
	local h p stops=() what a
	for h in "${rhosts[@]}"; do
		remote_stop "$h" >"$out/.stop-$h" &
		stops+=($!)
	done
	for p in "${stops[@]}"; do wait "$p" 2>/dev/null || true; done
	for h in "${rhosts[@]}"; do
		while read -r what a; do
			case "$what" in
			TERM) [ "${1:-}" != end ] || say "run-multi-client.sh: $a was still running on $h at the end of the run: stopped it (TERM)" ;;
			KILL) say "run-multi-client.sh: $a on $h did not stop within 5 s of TERM: killed it (KILL)" ;;
			esac
		done <"$out/.stop-$h"
		rm -f "$out/.stop-$h"
	done
}

# collect: copies every host's run directory (logs, results, histories,
# applied logs; not the binary) into the output directory, then removes
# it from the host unless KEEP_REMOTE=1.
collect() {
	[ "$multi" = 1 ] && [ "$collected" = 0 ] || return 0
	collected=1
	local h
	find "$out" -maxdepth 1 -name '*.ssh' -empty -delete
	for h in "${rhosts[@]}"; do
		on "$h" "cd $(q "$(rdir "$h")") 2>/dev/null && tar cf - --exclude=./swiftpaxos --exclude='./*.conf' --exclude=./latency.txt --exclude='./*.pid' --exclude=./STOP --exclude=./tls ." |
			tar xf - -C "$out" || echo "run-multi-client.sh: could not collect the files of $h" >&2
		if [ "${KEEP_REMOTE:-0}" != 1 ]; then
			on "$h" "rm -rf $(q "$(rdir "$h")"); rmdir $(q "$rdir_base") 2>/dev/null; true" || true
		fi
	done
}

cleanup() {
	trap '' INT TERM
	local p
	progress_off
	if [ "$multi" = 1 ] && [ "$remote_done" = 0 ]; then
		stop_hosts
		collect
	fi
	for p in "${all_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${all_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -f "$out"/.pid-* "$out"/.cpid-* "$out/.tty" "$out/.progress"
}
trap cleanup EXIT

# An interrupt while the clients run stops them (each saves what it
# measured) and lets the run end with a partial summary; any other
# interrupt, or a second one, stops everything at once.
phase=setup
interrupted=0
progress_pid=""
on_interrupt() {
	if [ "$phase" != clients ] || [ "$interrupted" = 1 ]; then
		say "run-multi-client.sh: interrupted"
		exit 130
	fi
	interrupted=1
	progress_off
	say "run-multi-client.sh: interrupted: stopping the clients, then writing a partial summary (interrupt again to stop at once)"
	local a
	for a in "${clients[@]}"; do signal_proc TERM "$a" || true; done
}
trap on_interrupt INT TERM

# The progress line (below) is rewritten in place, without a newline,
# while messages come from the launcher and from its background jobs
# alike: whether a progress line is showing is shared between processes,
# as the file DIR/.progress, which exists while one is. Every write to
# the terminal while the clients run holds the lock DIR/.tty. progress:
# 1 when there is a progress line at all (on a terminal, on this machine,
# with flock to take the lock).
progress=0
if [ -t 2 ] && [ "$multi" = 0 ] && command -v flock >/dev/null; then
	progress=1
fi

# say MESSAGE [CMD...]: prints MESSAGE on stderr on a line of its own,
# then what CMD prints there (the end of a file, a crash trace): a
# progress line showing is ended first, with a newline, and stays as it
# was at that moment. Everything the launcher and its jobs print while
# the clients run goes through here. CMD must not call say (the lock is
# held).
say() {
	local msg=$1
	shift
	if [ "${progress:-0}" = 0 ]; then
		echo "$msg" >&2
		[ $# = 0 ] || "$@" >&2 || true
		return 0
	fi
	{
		flock 9
		if [ -e "$out/.progress" ]; then
			rm -f "$out/.progress"
			printf '\n' >&2
		fi
		echo "$msg" >&2
		[ $# = 0 ] || "$@" >&2 || true
	} 9>>"$out/.tty"
}

# progress_off: stops the progress line's job and clears the line. Only
# in the launcher's own shell (the job is its child).
progress_off() {
	[ -n "${progress_pid:-}" ] || return 0
	kill -TERM "$progress_pid" 2>/dev/null || true
	wait "$progress_pid" 2>/dev/null || true
	progress_pid=""
	{
		flock 9
		if [ -e "$out/.progress" ]; then
			rm -f "$out/.progress"
			printf '\r\033[K' >&2
		fi
	} 9>>"$out/.tty"
}

# after SECONDS CMD...: runs CMD that many seconds from now in a
# background job recorded in all_pids. Stopping the job (TERM) stops it at
# once, with its timer: CMD waits only through isleep.
after() {
	local s=$1
	shift
	(
		sp=""
		trap '[ -z "$sp" ] || kill "$sp" 2>/dev/null; exit 0' TERM
		isleep "$s"
		"$@"
	) &
	all_pids+=($!)
}
# isleep SECONDS: a sleep that the TERM trap of an after job can end.
isleep() {
	sleep "$1" &
	sp=$!
	wait "$sp" || true
	sp=""
}

# probe HOST PORT: succeeds once something accepts connections there.
probe() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# A port that already accepts connections belongs to another run: probing
# it would connect this run's clients to somebody else's replica.
while read -r role alias addr; do
	[ "$role" = replica ] || [ "$role" = resp ] || continue
	if probe "$(host_of "$addr")" "${addr##*:}"; then
		[ "$role" = replica ] || addr="$addr (its RESP port, respPort)"
		echo "run-multi-client.sh: replica $alias cannot start: $addr is already in use (another run?)" >&2
		exit 1
	fi
done <<<"$hosts"

# ---- the emulated network: toxiproxy between every pair ----
declare -A conf_of
if [ "$proxy" = 1 ]; then
	netem="$here/bin/netem"
	# netem reads the configuration with the server's own package: a
	# change there makes it stale too.
	if stale "$netem" || [ -n "$(find "$here/scripts/netem" -newer "$netem" -print -quit)" ]; then
		echo "building $netem and $here/bin/toxiproxy-server"
		(cd "$here/scripts/netem" && go build -o "$netem" . && go build -o "$here/bin/toxiproxy-server" github.com/Shopify/toxiproxy/v2/cmd/server)
	fi
	api_port=${TOXIPROXY_PORT:-8474}
	if probe 127.0.0.1 "$api_port"; then
		echo "run-multi-client.sh: the toxiproxy API port 127.0.0.1:$api_port is in use (another run? set TOXIPROXY_PORT)" >&2
		exit 1
	fi
	"$here/bin/toxiproxy-server" -host 127.0.0.1 -port "$api_port" >"$out/toxiproxy.log" 2>&1 &
	toxi_pid=$!
	all_pids+=($toxi_pid)
	for ((i = 0; ; i++)); do
		probe 127.0.0.1 "$api_port" && break
		kill -0 "$toxi_pid" 2>/dev/null || { echo "run-multi-client.sh: toxiproxy-server exited; see $out/toxiproxy.log" >&2; exit 1; }
		[ "$i" -lt 250 ] || { echo "run-multi-client.sh: toxiproxy-server is not listening after 5 s" >&2; exit 1; }
		sleep 0.02
	done
	api="127.0.0.1:$api_port"
	"$netem" setup -api "$api" -config "$conf" -out "$out/netem" ${PROXY_IP:+-listen-ip "$PROXY_IP"} >"$out/netem-plan.txt"
	while read -r role alias addr; do
		[ "$role" = replica ] || [ "$role" = client ] || continue
		if [ "$multi" = 0 ]; then
			conf_of[$alias]="$out/netem/$alias.conf"
		else
			conf_of[$alias]="$alias.conf" # copied next to the binary
		fi
	done <<<"$hosts"
fi

# ---- multi-host staging: binary, configuration, latency file ----
if [ "$multi" = 1 ]; then
	rbin="$here/bin/swiftpaxos-remote"
	if stale "$rbin"; then
		echo "building $rbin (linux/${REMOTE_GOARCH:-$(go env GOARCH)}, no cgo)"
		(cd "$here" && CGO_ENABLED=0 GOOS=linux GOARCH="${REMOTE_GOARCH:-$(go env GOARCH)}" go build -o "$rbin" .)
	fi
	stage="$out/.stage"
	mkdir -p "$stage"
	# The latency file, if any, travels as latency.txt next to the copy
	# of the configuration (a relative latencyFile is relative to the
	# configuration's directory).
	lat=$(conf_value latencyfile "$conf")
	if [ -n "$lat" ]; then
		case "$lat" in /*) ;; *) lat="$(dirname "$conf")/$lat" ;; esac
		cp "$lat" "$stage/latency.txt"
		awk 'index(tolower($1), "latencyfile:") == 1 { print "latencyFile: latency.txt"; next } { print }' "$conf" >"$stage/swiftpaxos.conf"
	else
		cp "$conf" "$stage/swiftpaxos.conf"
	fi
	cp "$rbin" "$stage/swiftpaxos"
	while read -r role alias addr; do
		[ "$role" = replica ] || [ "$role" = client ] || continue
		h=$(host_of "$addr")
		host_for[$alias]=$h
		[[ " ${rhosts[*]} " == *" $h "* ]] || rhosts+=("$h")
	done <<<"$hosts"
	for h in "${rhosts[@]}"; do
		if [ -n "$tls_dir" ]; then
			# The CA certificate and the host's own certificates and keys
			# (never the CA's key), into the run directory's tls/.
			tfiles=("$tls_dir/ca.pem")
			for a in "${!host_for[@]}"; do
				[ "${host_for[$a]}" != "$h" ] || tfiles+=("$tls_dir/$a.pem" "$tls_dir/$a.key")
			done
			(
				on "$h" "mkdir -p $(q "$(rdir "$h")/tls")" &&
					scp -q "${ssh_opts[@]}" ${SSH_PORT:+-P "$SSH_PORT"} "${tfiles[@]}" "$(ssh_target "$([[ "$h" == *:* ]] && echo "[$h]" || echo "$h")"):$(rdir "$h")/tls/"
			) || { echo "run-multi-client.sh: cannot copy the certificates to $h" >&2; exit 1; }
		fi
		files=("$stage"/*)
		if [ "$proxy" = 1 ]; then
			# Behind the proxies every process reads its own configuration.
			for a in "${!host_for[@]}"; do
				[ "${host_for[$a]}" != "$h" ] || files+=("$out/netem/$a.conf")
			done
		fi
		(
			on "$h" "mkdir -p $(q "$(rdir "$h")")" &&
				scp -q "${ssh_opts[@]}" ${SSH_PORT:+-P "$SSH_PORT"} "${files[@]}" "$(ssh_target "$([[ "$h" == *:* ]] && echo "[$h]" || echo "$h")"):$(rdir "$h")/"
		) || { echo "run-multi-client.sh: cannot copy the binary and configuration to $h" >&2; exit 1; }
	done
	rm -rf "$stage"
	echo "copied the binary and configuration to ${#rhosts[@]} hosts: ${rhosts[*]}"
fi

# pdir: the output directory as the processes see it (their remote run
# directory in multi-host mode).
pdir=$out
[ "$multi" = 0 ] || pdir=.
if [ -n "$tls_dir" ]; then
	if [ "$multi" = 0 ]; then
		extra+=(-tls "$tls_dir")
	else
		extra+=(-tls tls)
	fi
fi

# start ROLE ALIAS ARGS...: starts one process in the background and
# records its PID in pid_of, the PID to signal (in multi-host mode, the
# PID of the local ssh that waits for it; the remote PID is in ALIAS.pid
# on its host), and in job_of the PID to wait for: the same, except for a
# replica on this machine, which runs under a keeper.
start() {
	local role=$1 alias=$2
	shift 2
	if [ "$multi" = 0 ]; then
		local pidfile="$out/.pid-$alias"
		if [ "$role" = replica ] || [[ ",$nemesis," == *,client,* ]]; then
			# A client the nemesis may kill runs under a keeper too (its
			# PID file apart from the replicas', which the memory sampler
			# reads).
			if [ "$role" = replica ]; then
				rm -f "$pidfile"
				keep "$pidfile" "$bin" "$@" 2>>"$out/$alias.err" &
			else
				pidfile="$out/.cpid-$alias"
				keep "$pidfile" "$bin" "$@" >"$out/$alias.out" 2>"$out/$alias.err" &
			fi
			job_of[$alias]=$!
			all_pids+=($!)
			until [ -s "$pidfile" ] || ! kill -0 "${job_of[$alias]}" 2>/dev/null; do sleep 0.005; done
			pid_of[$alias]=$(cat "$pidfile" 2>/dev/null || echo "${job_of[$alias]}")
			return
		fi
		"$bin" "$@" >"$out/$alias.out" 2>"$out/$alias.err" &
	else
		local h=${host_for[$alias]} redir=">$alias.out 2>$alias.err" a args=""
		[ "$role" = client ] || redir="2>>$alias.err"
		for a in "$@"; do args+=" $(q "$a")"; done
		# The ssh must outlive a Ctrl-C, which a terminal sends to the
		# whole process group: an ssh it ended would leave its process
		# running on the host, no longer waited for. The launcher stops
		# remote processes itself, by their PIDs. A background job of a
		# shell that traps INT, as this one does, does not ignore it (bash
		# resets the trap to the default in the job), hence the trap here.
		(
			trap '' INT
			on "$h" "cd $(q "$(rdir "$h")") && [ ! -e STOP ] && { ./swiftpaxos$args $redir & p=\$!; echo \$p >$alias.pid; [ ! -e STOP ] || kill -TERM \$p; wait \$p; rc=\$?; rm -f $alias.pid; exit \$rc; }"
		) >"$out/$alias.ssh" 2>&1 &
	fi
	pid_of[$alias]=$!
	job_of[$alias]=$!
	all_pids+=($!)
}

# keep PIDFILE CMD...: runs CMD as its child, writes the child's PID to
# PIDFILE, passes a TERM on to it and exits with its status. A replica
# (and a client the nemesis may kill) runs under one because the
# launcher kills replicas with kill -9: bash
# prints "line N: PID Killed ..." on its stderr, whatever it is doing
# then, for a child of its own that a signal ended, and the kill is the
# run's purpose, not news. The keeper's child is not the launcher's, and
# the keeper's own notice goes nowhere; the launcher still learns how the
# replica ended, from the keeper's status (137 after kill -9). The PID
# file is also how the memory sampler follows the replica.
keep() {
	local pidfile=$1 c="" rc term=0
	shift
	# A TERM ends the wait early; the child's status is still to come. The
	# trap is set before the child starts, and a TERM that came before
	# its PID was known is passed on once it is: the launcher goes on as
	# soon as the PID file is there, and may stop the run at once.
	trap 'term=1; [ -z "$c" ] || kill -TERM "$c"' TERM
	# A Ctrl-C reaches the replica itself (it stops on SIGINT, which Go
	# re-enables); a keeper it ended would leave the launcher with the
	# keeper's status instead of the replica's.
	trap '' INT
	"$@" &
	c=$!
	[ "$term" = 0 ] || kill -TERM "$c"
	echo "$c" >"$pidfile.tmp" && mv "$pidfile.tmp" "$pidfile"
	exec 2>/dev/null
	while :; do
		term=0 rc=0
		wait "$c" || rc=$?
		[ "$term" = 1 ] || exit "$rc"
	done
}

# signal_proc SIG ALIAS: sends SIG to the process by its PID.
signal_proc() {
	if [ "$multi" = 0 ]; then
		kill -"$1" "${pid_of[$2]}" 2>/dev/null
	else
		on "${host_for[$2]}" "cd $(q "$(rdir "${host_for[$2]}")") && [ -f $2.pid ] && kill -$1 \$(cat $2.pid)"
	fi
}

# term_remote ALIAS: on ALIAS's host, TERM to its process and KILL if it
# still runs 5 s later (stop_script); says so when it had to kill it.
term_remote() {
	local h=${host_for[$1]} sent
	sent=$(on "$h" "cd $(q "$(rdir "$h")") && ( $(stop_script "./$(q "$1").pid") ) || [ \$? = 3 ]") || true
	if grep -q '^KILL' <<<"$sent"; then
		say "run-multi-client.sh: $1 on $h did not stop within 5 s of TERM: killed it (KILL)"
	fi
}

# running ALIAS: the process still runs. Across hosts that is its local
# ssh, or else its PID file on its host: an ssh can end (its connection
# lost, or an interrupt that reached it) while the process it started
# runs on, and such a process must still be stopped.
running() {
	kill -0 "${pid_of[$1]}" 2>/dev/null || { [ "$multi" = 1 ] && signal_proc 0 "$1" 2>/dev/null; }
}

# stop_replica ALIAS: stops a running replica with TERM (across hosts,
# KILL 5 s later if it still runs) and waits for it; fails, saying so,
# when it exited with an error. Without its ssh its exit status is lost:
# its log tells how it stopped.
stop_replica() {
	local st=0
	if [ "$multi" = 0 ]; then
		kill -TERM "${pid_of[$1]}" 2>/dev/null || true
	elif kill -0 "${pid_of[$1]}" 2>/dev/null; then
		term_remote "$1"
	else
		term_remote "$1"
		say "run-multi-client.sh: the ssh that started $1 ended before it (see $out/$1.ssh); stopped it over a new connection"
		return 0
	fi
	wait "${job_of[$1]}" || st=$?
	[ "$st" = 0 ] && return 0
	say "run-multi-client.sh: replica $1 exited with an error ($(how_ended "$st")); see $out/$1.log"
	return 1
}

# in_dir ALIAS CMD: runs the shell command CMD in the directory of the
# process's files: DIR, or its run directory on its host.
in_dir() {
	if [ "$multi" = 0 ]; then
		(cd "$out" && eval "$2")
	else
		on "${host_for[$1]}" "cd $(q "$(rdir "${host_for[$1]}")") && $2"
	fi
}

# A replica's stderr (ALIAS.err) holds its own error line ("swiftpaxos:
# ..."), the first problem of a configuration it refused ("FILE:LINE:
# ..."), or a crash trace, which the runtime also writes to its log
# (log.go); its log (ALIAS.log) holds everything else.
crash_pat='^(panic: |fatal error: |SIG[A-Z]+: )'

# reason ALIAS: the one-line reason a replica gave for stopping, from its
# stderr.
reason() {
	in_dir "$1" "grep -m1 -E $(q "^swiftpaxos: |^[^ ]+:[0-9]+: |$crash_pat") $(q "$1.err")" 2>/dev/null
	true
}

# why_stopped ALIAS: what to read of a replica that stopped: the start of
# its crash trace, else the end of its stderr, else the end of its log.
why_stopped() {
	if in_dir "$1" "grep -q -E $(q "$crash_pat") $(q "$1.err")" 2>/dev/null; then
		echo "its crash trace ($out/$1.err, and in $out/$1.log) begins:" >&2
		in_dir "$1" "grep -m1 -A7 -E $(q "$crash_pat") $(q "$1.err")" >&2 || true
	elif in_dir "$1" "test -s $(q "$1.err")" 2>/dev/null; then
		echo "its stderr ($out/$1.err) ends with:" >&2
		show_tail "$1" "$1.err"
	else
		echo "its log ($out/$1.log) ends with:" >&2
		show_tail "$1" "$1.log"
	fi
}

# how_ended STATUS: a process's exit status in words.
how_ended() {
	if [ "$1" -gt 128 ] && [ "$1" -lt 160 ]; then
		echo "signal $(kill -l "$1")"
	else
		echo "exit status $1"
	fi
}

# ended ALIAS: how the replica's process, a child of this shell, ended,
# into how (waiting here, not in a command substitution's subshell, whose
# child it is not).
ended() {
	local rc=0
	wait "${job_of[$1]}" 2>/dev/null || rc=$?
	how=$(how_ended "$rc")
}

# died_at_startup ALIAS: says that the replica exited while starting,
# with its reason first, then what to read of its files.
died_at_startup() {
	local why how
	why=$(reason "$1")
	ended "$1"
	echo "run-multi-client.sh: replica $1 exited during start-up ($how)${why:+: ${why#swiftpaxos: }}" >&2
	why_stopped "$1"
}

# show_tail ALIAS FILE: the last lines of one of the process's files.
show_tail() {
	in_dir "$1" "tail -3 $(q "$2")" >&2 || true
	[ "$multi" = 0 ] || [ ! -s "$out/$1.ssh" ] || tail -3 "$out/$1.ssh" >&2
}

# cfg_for ALIAS: the configuration the process reads.
cfg_for() {
	if [ -n "${conf_of[$1]:-}" ]; then
		printf '%s' "${conf_of[$1]}"
	elif [ "$multi" = 1 ]; then
		printf 'swiftpaxos.conf'
	else
		printf '%s' "$conf"
	fi
}

# --metrics: metrics_of[ALIAS] is the HOST:PORT process ALIAS serves its
# metrics on, its own address (loopback on this machine) with a port of
# its own, so that processes sharing a host never collide.
declare -A metrics_of=()
if [ "$metrics" = 1 ]; then
	mport=${METRICS_PORT:-9400}
	while read -r role alias addr; do
		[ "$role" = replica ] || [ "$role" = client ] || continue
		mhost=$(host_of "$addr")
		[[ "$mhost" != *:* ]] || mhost="[$mhost]"
		metrics_of[$alias]="$mhost:$mport"
		echo "metrics: $alias http://$mhost:$mport/metrics" >&2
		mport=$((mport + 1))
	done <<<"$hosts"
fi

# On one machine the processes share its cores. A Go process runs as many
# threads as there are cores; with more processes than cores their
# schedulers spin and wake one another, which costs a fifth of the CPU of
# a default run on 2 cores (docs/TUNING.md, "The hot path"). So each process
# gets its share of the cores, rounded up, unless GOMAXPROCS is set.
if [ "$multi" = 0 ] && [ -z "${GOMAXPROCS:-}" ]; then
	nprocs=$(grep -cE '^(replica|client) ' <<<"$hosts")
	cores=$(nproc)
	export GOMAXPROCS=$(((cores + nprocs - 1) / nprocs))
	echo "GOMAXPROCS=$GOMAXPROCS for each of the $nprocs processes on $cores cores (set GOMAXPROCS to choose)" >&2
fi

# replica_args ALIAS LIFE: the arguments of replica ALIAS, into rargs;
# LIFE is "" for its first lifetime and ".2" after a restart. Each
# lifetime has its own applied log (the replica refuses one that exists)
# and its own cost report, which the summary merges (cost-*.json). A
# first lifetime is a new replica of a new cluster (-cluster new: the
# initial leader leads at once, whichever replica starts first); a
# restarted one is not (docs/DECISIONS.md 37).
replica_args() {
	rargs=(-run server -config "$(cfg_for "$1")" -alias "$1" -log "$pdir/$1.log"
		-cost "$pdir/cost-$1$2.json" "${extra[@]}")
	[ -n "$2" ] || rargs+=(-cluster new)
	[ -z "$data_rel" ] || rargs+=(-data "$pdir/$data_rel")
	[ "$check" = 0 ] || rargs+=(-appliedlog "$pdir/log-$1$2.jsonl")
	[ -z "${metrics_of[$1]:-}" ] || rargs+=(-metrics "${metrics_of[$1]}")
	[ "${profile:-0}" = 0 ] || rargs+=(-cpuprofile "$pdir/$1$2.cpu.pprof")
}

# event WHAT ALIAS: records a kill or restart in events.txt, with this
# machine's clock in milliseconds (the summary puts it on the timeline).
# event EVENT ALIAS [UNIX_MS]: a line of events.txt, at UNIX_MS or now.
event() { echo "${3:-$(date +%s%3N)} $1 $2" >>"$out/events.txt"; }

start=$(date +%s.%N)
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	replica_args "$alias" ""
	start replica "$alias" "${rargs[@]}"
done <<<"$hosts"

# Wait for every replica to listen: probe its port every 20 ms, at most
# 250 times (5 s; 1,500 times, 30 s, across hosts), and fail at once if
# the process exits.
limit=250
[ "$multi" = 0 ] || limit=1500
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	for ((i = 0; ; i++)); do
		probe "$(host_of "$addr")" "${addr##*:}" && break
		if ! kill -0 "${pid_of[$alias]}" 2>/dev/null; then
			died_at_startup "$alias"
			exit 1
		fi
		if [ "$i" -ge "$limit" ]; then
			echo "run-multi-client.sh: replica $alias is not listening on $addr after $((limit / 50)) s" >&2
			exit 1
		fi
		sleep 0.02
	done
done <<<"$hosts"

# all_alive: exits, saying why, if a replica exited while starting.
all_alive() {
	local role a addr
	while read -r role a addr; do
		if [ "$role" = replica ] && ! kill -0 "${pid_of[$a]}" 2>/dev/null; then
			died_at_startup "$a"
			exit 1
		fi
	done <<<"$hosts"
}

# On this machine, also wait (at most 10 s) for every replica to be a
# member of the cluster: a client request that reaches a replica still
# asking its peers whether the cluster is new is not answered, and the
# client sends it again only after retryMs, which made every run start
# with two idle seconds. Across hosts the logs are remote, and above the
# info level the lines are not logged; the port probe above is all there
# is then.
if [ "$multi" = 0 ] && [[ "${loglevel:-info}" =~ ^(debug|info)$ ]]; then
	replica_logs=()
	while read -r role alias addr; do
		[ "$role" = replica ] || continue
		replica_logs+=("$out/$alias.log")
		for ((i = 0; ; i++)); do
			grep -q -e 'cluster bootstrapped' -e 'rejoined as a full member' -e 'restarted from disk' "$out/$alias.log" 2>/dev/null && break
			# A replica that died keeps the others from joining.
			all_alive
			if [ "$i" -ge 500 ]; then
				echo "run-multi-client.sh: replica $alias did not join the cluster within 10 s; its log ($out/$alias.log) ends with:" >&2
				show_tail "$alias" "$alias.log"
				exit 1
			fi
			sleep 0.02
		done
	done <<<"$hosts"
	# Replicas restarted from their dataDir come back as followers with no
	# leader: wait (at most 30 s) for one to be elected and start its view,
	# so that the measured run does not begin with an election.
	if grep -q 'restarted from disk' "${replica_logs[@]}" 2>/dev/null; then
		for ((i = 0; ; i++)); do
			if elected=$(grep -l 'view started' "${replica_logs[@]}" 2>/dev/null | head -1) && [ -n "$elected" ]; then
				elected=$(basename "$elected" .log)
				echo "note: the replicas restarted from $data_dir elected $elected" >&2
				break
			fi
			all_alive
			if [ "$i" -ge 1500 ]; then
				echo "run-multi-client.sh: the replicas restarted from $data_dir elected no leader within 30 s; see their logs in $out" >&2
				exit 1
			fi
			sleep 0.02
		done
	fi
fi

# --sample-rss: one background job reads every replica's VmRSS each
# rss_every seconds until the launcher stops it.
if [ -n "$rss_every" ]; then
	echo "unix_ms,alias,rss_kb" >"$out/rss.csv"
	sample_rss() {
		local f a p kb
		while :; do
			for f in "$out"/.pid-*; do
				[ -e "$f" ] || continue
				a=${f##*/.pid-}
				p=$(cat "$f" 2>/dev/null) || continue
				kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
				[ -z "$kb" ] || echo "$(date +%s%3N),$a,$kb" >>"$out/rss.csv"
			done
			isleep "$rss_every"
		done
	}
	after 0 sample_rss
fi

clients=()
while read -r role alias addr; do
	[ "$role" = client ] || continue
	args=(-run client -config "$(cfg_for "$alias")" -alias "$alias" -log "$pdir/$alias.log" -results "$pdir/results-$alias.json" "${extra[@]}")
	[ "${profile:-0}" = 0 ] || args+=(-cpuprofile "$pdir/$alias.cpu.pprof")
	[ -z "${threads:-}" ] || args+=(-threads "$threads")
	[ -z "${metrics_of[$alias]:-}" ] || args+=(-metrics "${metrics_of[$alias]}")
	[ "$check" = 0 ] || args+=(-history "$pdir/history-$alias.jsonl")
	# A client the nemesis may kill writes its history as it goes.
	[ "$check" = 0 ] || [[ ",$nemesis," != *,client,* ]] || args+=(-journal "$pdir/journal-$alias.jsonl")
	start client "$alias" "${args[@]}"
	clients+=("$alias")
done <<<"$hosts"
# The instant the faults of --nemesis count from.
clients_at=$(date +%s%3N)

# leader_alias: the replica that leads at the start: the first one, or,
# in a cluster restarted from its dataDir, the one it elected (known on
# this machine at the info level). follower_alias: the last replica
# that is not that leader.
elected=${elected:-}
leader_alias() {
	if [ -n "$elected" ]; then
		echo "$elected"
	else
		awk '$1 == "replica" { print $2; exit }' <<<"$hosts"
	fi
}
follower_alias() {
	awk -v l="$(leader_alias)" '$1 == "replica" && $2 != l { v = $2 } END { print v }' <<<"$hosts"
}

killed=""
if [ -n "$kill_at" ]; then
	if [ "$kill_which" = leader ]; then
		victim=$(leader_alias)
	else
		victim=$(follower_alias)
	fi
	# The instant is taken before the signal: across hosts the ssh that
	# sends it takes longer than a failover here. The launcher's TERM at
	# the end of the run waits for a kill under way.
	kill_victim() {
		trap '' TERM
		local at
		at=$(date +%s%3N)
		if signal_proc KILL "$victim"; then
			event killed "$victim" "$at"
			if [ "$multi" = 0 ]; then
				say "killed $victim (pid ${pid_of[$victim]}) at ${kill_at}s"
			else
				say "killed $victim on ${host_for[$victim]} at ${kill_at}s"
			fi
		else
			say "run-multi-client.sh: $victim was no longer running at ${kill_at}s, not killed; see $out/$victim.log"
		fi
	}
	after "$kill_at" kill_victim
	kill_pid=$!
	killed=$victim
fi

# --restart-follower-at: one background job kills the last replica, starts
# it again (as its own child, so that it can wait for it) and, when the
# launcher stops it with TERM, stops the replica by its PID and exits with
# the replica's status. restart_pid is the job.
restart_pid=""
if [ -n "$restart_at" ]; then
	victim=$(follower_alias)
	victim_addr=$(awk -v a="$victim" '$1 == "replica" && $2 == a { print $3 }' <<<"$hosts")
	old_pid=${pid_of[$victim]}
	(
		sp="" rp=""
		stop_restarted() {
			[ -z "$sp" ] || kill "$sp" 2>/dev/null
			[ -n "$rp" ] || exit 0
			if [ "$multi" = 0 ]; then kill -TERM "$rp" 2>/dev/null; else term_remote "$victim"; fi
			wait "$rp"
			exit $?
		}
		trap stop_restarted TERM
		isleep "$restart_at"
		# A TERM while the replica is killed waits until the kill is
		# recorded (the launcher tells a killed replica by events.txt).
		term=0
		trap 'term=1' TERM
		if ! signal_proc KILL "$victim"; then
			say "run-multi-client.sh: $victim was not running at ${restart_at}s, nothing to restart; see $out/$victim.log"
			exit 1
		fi
		event killed "$victim"
		trap stop_restarted TERM
		[ "$term" = 0 ] || stop_restarted
		say "killed $victim at ${restart_at}s"
		isleep "$restart_down"
		# The old process must be gone: its port closed and, across hosts,
		# its ssh done (which removes its PID file, the new one's too if
		# it came later). Checked every 20 ms, for at most 10 s.
		for ((i = 0; ; i++)); do
			if ! probe "$(host_of "$victim_addr")" "${victim_addr##*:}" && { [ "$multi" = 0 ] || ! kill -0 "$old_pid" 2>/dev/null; }; then
				break
			fi
			if [ "$i" -ge 500 ]; then
				say "run-multi-client.sh: $victim still holds $victim_addr 10 s after kill -9; not restarted"
				exit 1
			fi
			isleep 0.02
		done
		# A TERM while the process starts waits until its PID is known.
		term=0
		trap 'term=1' TERM
		replica_args "$victim" .2
		event restarted "$victim"
		start replica "$victim" "${rargs[@]}"
		rp=${job_of[$victim]}
		trap stop_restarted TERM
		[ "$term" = 0 ] || stop_restarted
		say "restarted $victim at $(awk -v a="$restart_at" -v d="$restart_down" 'BEGIN { print a + d }')s"
		wait "$rp"
		rc=$?
		# A replica exits on its own only with an error.
		why=$(reason "$victim")
		say "run-multi-client.sh: the restarted $victim exited during the run ($(how_ended "$rc"))${why:+: ${why#swiftpaxos: }}" why_stopped "$victim"
		exit 1
	) &
	restart_pid=$!
	all_pids+=($restart_pid)
	killed=$victim
fi

# --crash-all-at: one background job kills every replica, starts them all
# again (as its own children, so that it can wait for them) and, when the
# launcher stops it with TERM, stops them by their PIDs and exits non-zero
# if any of them exited on its own. crash_pid is the job.
crash_pid=""
if [ -n "$crash_at" ]; then
	crashed=$(awk '$1 == "replica" { print $2 }' <<<"$hosts")
	(
		declare -A new_pid=()
		sp=""
		stop_crashed() {
			local a rc=0 why st
			[ -z "$sp" ] || kill "$sp" 2>/dev/null
			for a in "${!new_pid[@]}"; do
				if kill -0 "${new_pid[$a]}" 2>/dev/null; then
					if [ "$multi" = 0 ]; then kill -TERM "${new_pid[$a]}" 2>/dev/null; else term_remote "$a"; fi
					wait "${new_pid[$a]}" || rc=1
				else
					why=$(reason "$a")
					wait "${new_pid[$a]}" 2>/dev/null && st=0 || st=$?
					say "run-multi-client.sh: the restarted $a exited during the run ($(how_ended "$st"))${why:+: ${why#swiftpaxos: }}" why_stopped "$a"
					rc=1
				fi
			done
			exit $rc
		}
		trap stop_crashed TERM
		isleep "$crash_at"
		# A TERM while the replicas are killed waits until every kill is
		# recorded (the launcher tells a killed replica by events.txt).
		term=0
		trap 'term=1' TERM
		for a in $crashed; do
			signal_proc KILL "$a" && event killed "$a"
		done
		trap stop_crashed TERM
		[ "$term" = 0 ] || stop_crashed
		say "killed every replica at ${crash_at}s"
		isleep "$crash_down"
		# Every old process must be gone, its port closed (every 20 ms, at
		# most 10 s).
		for a in $crashed; do
			addr=$(awk -v a="$a" '$1 == "replica" && $2 == a { print $3 }' <<<"$hosts")
			for ((i = 0; ; i++)); do
				probe "$(host_of "$addr")" "${addr##*:}" || break
				if [ "$i" -ge 500 ]; then
					say "run-multi-client.sh: $a still holds $addr 10 s after kill -9; not restarted"
					exit 1
				fi
				isleep 0.02
			done
		done
		term=0
		trap 'term=1' TERM
		for a in $crashed; do
			replica_args "$a" .2
			event restarted "$a"
			start replica "$a" "${rargs[@]}"
			new_pid[$a]=${job_of[$a]}
		done
		trap stop_crashed TERM
		[ "$term" = 0 ] || stop_crashed
		say "restarted every replica at $(awk -v a="$crash_at" -v d="$crash_down" 'BEGIN { print a + d }')s"
		while :; do isleep 1; done
	) &
	crash_pid=$!
	all_pids+=($crash_pid)
fi

if [ -n "$part_at" ]; then
	leader=$(leader_alias)
	partition() {
		"$netem" cut -api "$api" -config "$conf" -isolate "$leader" -from "$part_from" -mode "$part_mode" >>"$out/partition.log" 2>&1 &&
			say "partitioned $leader from the $part_from ($part_mode) at ${part_at}s for ${part_dur}s"
		isleep "$part_dur"
		"$netem" heal -api "$api" -config "$conf" -isolate "$leader" -from "$part_from" >>"$out/partition.log" 2>&1 &&
			say "healed $leader at $(awk -v a="$part_at" -v d="$part_dur" 'BEGIN { print a + d }')s"
	}
	after "$part_at" partition
fi

# --nemesis: one background job runs bin/nemesis run as a coprocess
# and carries out its commands (scripts/internal/nemesis/hands.go) with
# the PIDs this launcher owns: it kills, stops, wakes and starts replicas
# again (as its own children, so that it can wait for them, each
# lifetime with its own applied log and cost report: log-ALIAS.N.jsonl,
# cost-ALIAS.N.json), cuts and heals links through the proxies, kills
# clients, and records every step in events.txt. When the launcher stops
# it with TERM it stops the runner, wakes any replica still paused (a
# stopped process cannot stop), stops the replicas it started, and exits
# non-zero if the runner failed or was cut short, or one of those
# replicas exited on its own. nem_pid is the job.
nem_pid=""
if [ -n "$nemesis" ]; then
	(
		declare -A life=() paused=() mine=() down=()
		sp="" runner="" rc=0 why=""
		nem_stop() {
			local a st
			trap '' TERM
			[ -z "$sp" ] || kill "$sp" 2>/dev/null
			if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then
				kill -TERM "$runner" 2>/dev/null
				wait "$runner" 2>/dev/null || true
				say "run-multi-client.sh: the nemesis was stopped before the end of its plan; see $out/nemesis.log"
				rc=1
			fi
			for a in "${!paused[@]}"; do kill -CONT "${pid_of[$a]}" 2>/dev/null || true; done
			for a in "${!mine[@]}"; do
				if kill -0 "${mine[$a]}" 2>/dev/null; then
					kill -TERM "${pid_of[$a]}" 2>/dev/null || true
					wait "${mine[$a]}" || rc=1
				elif [ -z "${down[$a]:-}" ]; then
					wait "${mine[$a]}" 2>/dev/null && st=0 || st=$?
					say "run-multi-client.sh: the restarted $a exited during the run ($(how_ended "$st"))$(why=$(reason "$a"); echo "${why:+: ${why#swiftpaxos: }}")" why_stopped "$a"
					rc=1
				fi
			done
			exit $rc
		}
		# nem_gone ALIAS: waits until killed replica ALIAS's process is
		# gone, its port closed (every 20 ms, at most 10 s); on failure,
		# why says why.
		nem_gone() {
			local addr i
			addr=$(awk -v a="$1" '$1 == "replica" && $2 == a { print $3 }' <<<"$hosts")
			for ((i = 0; ; i++)); do
				probe "$(host_of "$addr")" "${addr##*:}" || return 0
				[ "$i" -lt 500 ] || { why="$1 still holds $addr 10 s after kill -9"; return 1; }
				isleep 0.02
			done
		}
		# nem_do VERB ARGS...: carries out one command of the runner; on
		# failure, why says why.
		nem_do() {
			local verb=$1 a=${2:-}
			shift
			why=""
			case "$verb" in
			begin)
				event begin "$*"
				say "nemesis: fault $1: $2 $3 ($4)" ;;
			end)
				event end "$1"
				say "nemesis: fault $1 healed" ;;
			skip)
				event skipped "$1 $2"
				say "nemesis: fault $1 ($2) skipped: ${*:3}" ;;
			kill)
				signal_proc KILL "$a" || { why="$a was not running"; return 1; }
				down[$a]=1
				event killed "$a" ;;
			wipe)
				# A killed replica's data directory, emptied: it starts
				# again as a new life that must rejoin.
				[ -n "${down[$a]:-}" ] || { why="$a is running: only a killed replica's data directory is emptied"; return 1; }
				[ -n "$data_dir" ] || { why="no dataDir: nothing to wipe"; return 1; }
				nem_gone "$a" || return 1
				rm -rf -- "${data_dir:?}/$a" || { why="cannot empty $data_dir/$a"; return 1; } ;;
			kill-client)
				# Recorded first: the launcher, waiting for the client,
				# tells a client the nemesis killed by events.txt.
				kill -0 "${pid_of[$a]}" 2>/dev/null || { why="client $a was not running"; return 1; }
				event killed "$a"
				signal_proc KILL "$a" || { why="client $a was not running"; return 1; } ;;
			stop)
				signal_proc STOP "$a" || { why="$a was not running"; return 1; }
				paused[$a]=1 ;;
			cont)
				signal_proc CONT "$a" || { why="$a was not running"; return 1; }
				unset "paused[$a]" ;;
			cut | heal)
				"$netem" "$verb" -api "$api" -config "$conf" "$@" >>"$out/partition.log" 2>&1 ||
					{ why="netem $verb $* failed (see $out/partition.log)"; return 1; } ;;
			start)
				# The old process must be gone.
				nem_gone "$a" || return 1
				# The lifetime it ends, if it was one of the job's.
				[ -z "${mine[$a]:-}" ] || wait "${mine[$a]}" 2>/dev/null || true
				life[$a]=$((${life[$a]:-1} + 1))
				replica_args "$a" ".${life[$a]}"
				event restarted "$a"
				start replica "$a" "${rargs[@]}"
				mine[$a]=${job_of[$a]}
				unset "down[$a]" ;;
			*)
				why="unknown command $verb"
				return 1 ;;
			esac
		}
		trap nem_stop TERM
		tls_arg=()
		[ -z "$tls_dir" ] || tls_arg=(-tls "$tls_dir")
		coproc NEM { exec "$nembin" run "${nem_args[@]}" -start "$clients_at" "${tls_arg[@]}" 2>>"$out/nemesis.log"; }
		# shellcheck disable=SC2153 # set by coproc
		runner=$NEM_PID
		# Copies of the coprocess's descriptors: bash closes its own when
		# the coprocess ends, and its last words are still to be read.
		exec {nem_in}<&"${NEM[0]}" {nem_out}>&"${NEM[1]}"
		while read -r -a cmd -u "$nem_in"; do
			[ ${#cmd[@]} -gt 0 ] || continue
			# A TERM while a command is carried out waits for its end:
			# a replica half started would be nobody's to stop.
			term=0
			trap 'term=1' TERM
			if nem_do "${cmd[@]}"; then reply=ok; else reply="fail $why"; fi
			trap nem_stop TERM
			{ printf '%s\n' "$reply" 1>&"$nem_out"; } 2>/dev/null || true
			[ "$term" = 0 ] || nem_stop
		done
		st=0
		wait "$runner" || st=$?
		runner=""
		if [ "$st" != 0 ]; then
			say "run-multi-client.sh: the nemesis failed ($(how_ended "$st")): $(tail -1 "$out/nemesis.log")"
			rc=1
		fi
		while :; do isleep 1; done
	) &
	nem_pid=$!
	all_pids+=("$nem_pid")
fi

# The progress line: once a second, the last progress line of every
# client (client/bench/bench.go reportProgress: fields 2 seconds, 3 done[/total],
# 5 rate, 7 failed) merged into one, rewritten in place. Only on a
# terminal, and only here: across hosts the clients' files are remote.
if [ "$progress" = 1 ]; then
	show_progress() {
		local line
		while :; do
			isleep 1
			line=$(for a in "${clients[@]}"; do tail -n 1 "$out/$a.err" 2>/dev/null; done | awk -v procs=${#clients[@]} '
				$4 == "ops" && $6 == "ops/s" && $8 == "errors" {
					n++; m = split($3, d, "/"); done += d[1]; total += d[2]; rate += $5; failed += $7; t = $2
					if (m < 2) timed = 1
				}
				END {
					if (n == 0) exit
					# The ternary in parentheses: a bare > among the arguments
					# of printf redirects its output to a file.
					if (timed) printf "%s  %d ops", t, done
					else printf "%d/%d ops (%.0f%%)", done, total, (total > 0 ? 100 * done / total : 0)
					printf "  %d ops/s  %d errors", rate, failed
					if (n < procs) printf "  (%d of %d clients reporting)", n, procs
				}')
			[ -n "$line" ] || continue
			# The mark first: a job stopped between the two leaves a mark
			# and no line (an extra line break at worst), never a line
			# that the next message would be glued to.
			{
				flock 9
				: >"$out/.progress"
				printf '\r\033[Krunning: %s' "$line" >&2
			} 9>>"$out/.tty"
		done
	}
	after 0 show_progress
	progress_pid=$!
fi

# wait_for PID: the process's exit status. An interrupt ends a wait early
# (status above 128) while the process still runs: wait again then.
wait_for() {
	local rc
	while :; do
		wait "$1" && return 0
		rc=$?
		[ "$rc" -gt 128 ] && kill -0 "$1" 2>/dev/null && continue
		return "$rc"
	done
}

phase=clients
status=0
for a in "${clients[@]}"; do
	if ! wait_for "${job_of[$a]}"; then
		# A client the nemesis killed ended as it had to.
		! grep -q " killed $a\$" "$out/events.txt" 2>/dev/null || continue
		status=1
		# An interrupted client says so itself; the summary tells the rest.
		[ "$interrupted" = 0 ] || continue
		say "run-multi-client.sh: client $a failed; $out/$a.err ends with:" show_tail "$a" "$a.err"
	fi
done
phase=stopping
progress_off

# Stop the replicas cleanly (they flush their applied logs on the way out)
# and report any that died on their own. A restarted replica is stopped
# through its job, which reports it if it died; the job is over before the
# replicas of the first start are stopped here, every one still running
# (all of them when the fault came too late), so that each writes its
# cost report before the summary is made.
if [ -n "$kill_at" ]; then
	kill -TERM "$kill_pid" 2>/dev/null || true
	wait "$kill_pid" 2>/dev/null || true
fi
if [ -n "$kill_at" ] && [ "$interrupted" = 0 ] && ! grep -q " killed $killed\$" "$out/events.txt" 2>/dev/null; then
	echo "run-multi-client.sh: $killed was not killed: the clients finished before ${kill_at}s (make the run longer: runTime, or more reqs), or it was no longer running (see above)" >&2
	status=1
fi
if [ -n "$restart_pid" ]; then
	kill -TERM "$restart_pid" 2>/dev/null || true
	wait "$restart_pid" || { echo "run-multi-client.sh: the restart of $victim failed; see $out/$victim.log" >&2; status=1; }
	if [ "$interrupted" = 0 ] && ! grep -q " restarted $victim\$" "$out/events.txt" 2>/dev/null; then
		echo "run-multi-client.sh: the clients finished before $victim was restarted (at $restart_at + $restart_down s): make the run longer (runTime, scripts/restart.conf)" >&2
		status=1
	fi
fi
if [ -n "$crash_pid" ]; then
	kill -TERM "$crash_pid" 2>/dev/null || true
	wait "$crash_pid" || { echo "run-multi-client.sh: the whole-cluster crash and restart failed; see the replicas' logs in $out" >&2; status=1; }
	if [ "$interrupted" = 0 ] && [ "$(grep -c ' restarted ' "$out/events.txt" 2>/dev/null)" != "$(grep -c '^replica ' <<<"$hosts")" ]; then
		echo "run-multi-client.sh: the clients finished before every replica was restarted (at $crash_at + $crash_down s): make the run longer (runTime)" >&2
		status=1
	fi
fi
if [ -n "$nem_pid" ]; then
	kill -TERM "$nem_pid" 2>/dev/null || true
	if ! wait "$nem_pid"; then
		status=1
		[ "$interrupted" = 1 ] || echo "run-multi-client.sh: the nemesis failed; see $out/nemesis.log" >&2
	fi
fi
while read -r role alias addr; do
	[ "$role" = replica ] || continue
	if running "$alias"; then
		stop_replica "$alias" || status=1
		continue
	fi
	# On this machine an interrupt from the terminal reaches the replicas
	# too.
	if [ "$alias" != "$killed" ] && [ "$interrupted" = 0 ] && ! grep -q " killed $alias\$" "$out/events.txt" 2>/dev/null; then
		why=$(reason "$alias")
		ended "$alias"
		echo "run-multi-client.sh: replica $alias died during the run ($how)${why:+: ${why#swiftpaxos: }}" >&2
		why_stopped "$alias"
		status=1
	fi
done <<<"$hosts"

if [ "$multi" = 1 ]; then
	stop_hosts end
	collect
	remote_done=1
fi

summary_args=(-run summary -config "$conf" -results "$out")
[ "$interrupted" = 0 ] || summary_args+=(-interrupted)
if ! "$bin" "${summary_args[@]}"; then
	status=1
fi
awk -v s="$start" -v e="$(date +%s.%N)" -v o="$out" 'BEGIN { printf "wall time: %.1f s; output in %s\n", e - s, o }'
[ "$interrupted" = 0 ] || exit 130
exit $status
