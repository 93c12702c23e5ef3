#!/usr/bin/env bash
# make demo: sweep the shipped shortlist on the shipped demo dataset with the
# embedded engine in the default mode (auto: each index group's candidate
# lists collected once through a real `tune serve` restart, the query-time
# variants replayed, the best verified live and the winner confirmed by
# apply + restart), print the leaderboard and keep the run under
# tuning_runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s%N)
bin/tune --experiments experiments/shortlist.json --runs-dir tuning_runs "$@"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "demo: finished in ${ms} ms; review with: bin/tune leaderboard --runs-dir tuning_runs" >&2
