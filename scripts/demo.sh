#!/usr/bin/env bash
# make demo: sweep the shipped shortlist on the shipped demo dataset with the
# embedded engine in the default mode (auto: each index group's candidate
# lists collected once through a real `tune serve` restart, the query-time
# variants replayed, the best verified live and the winner confirmed by
# apply + restart), print the leaderboard and keep the run under
# tuning_runs/; then point at tune init --dataset for the user's own data.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s%N)
bin/tune --experiments experiments/shortlist.json --runs-dir tuning_runs "$@"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "demo: finished in ${ms} ms; review with: bin/tune leaderboard --runs-dir tuning_runs" >&2
echo "next, your own data: bin/tune init --dataset PATH --dir DIR (PATH: a BEIR folder, TREC topics with --judgments, or a golden set with --corpus), then do what it prints" >&2
