#!/usr/bin/env bash
# Runs every simulation configuration of both protocols (or one) from a
# random seed base for a given time, and prints one replay command per
# failing seed and a summary line; exits non-zero on any failure. Run it
# before trusting a change; it is not part of CI.
#
#   scripts/soak.sh [-d DURATION] [-p curpht|curpho] [-base SEED] [-j JOBS] [-config NAME]
#
# DURATION is a Go duration (default 10m). -base fixes the seed base, so a
# whole soak replays; a single failure replays with the go test command it
# prints.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/soak "$@"
