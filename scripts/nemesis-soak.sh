#!/usr/bin/env bash
# Runs checked nemesis runs of real processes (run-multi-client.sh --check
# --nemesis) one after another, each with a fresh seed, for a given time,
# and prints one line per run, one replay command per failing seed and a
# summary line; exits non-zero on any failure. Not part of CI: it keeps
# the machine busy; run it niced when others measure.
#
#   scripts/nemesis-soak.sh -d 30m -p curpht|curpho [-durable] [-kinds KINDS] [-every D] [-c CONF] [-o DIR] [-keep]
#
# In memory (scripts/nemesis.conf) the faults are
# kill,restart,pause,partition,client; -durable
# (scripts/nemesis-durable.conf) adds wipe and crash-all; -c
# scripts/nemesis-lease.conf reads under the leader's lease. A failing seed replays
# with the run-multi-client.sh command it prints (the same plan; the
# processes' own timing differs from run to run). docs/FAULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/nemesis soak "$@"
