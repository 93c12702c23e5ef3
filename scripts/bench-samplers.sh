#!/usr/bin/env bash
# bench-samplers.sh — sample efficiency of the samplers against the full grid.
#
#   make bench-samplers            # or ./scripts/bench-samplers.sh
#
# For the demo dataset and ../shared/data/scifact (skipped when absent), the
# embedded engine is built once (whole documents, BM25 + dense) and asked once
# per query for its candidate lists (explain); every configuration is then
# fused offline with backend/fusion and scored with the default composite.
# The table gives, for random search, TPE and CMA-ES over RRF k in [10, 80]
# and the BM25 weight in [0, 1] (dense weight 1 - w), the trial at which the
# best score so far comes within 0.5% of the best of the 55-point grid
# (k in {10,20,40,60,80} x w in {0.0,...,1.0}), for seeds 1-5, and the median
# as a share of the grid's 55 trials (target for TPE: <= 15%).
# The table is written to bin/bench-samplers.md (OUT=path to change).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-bin/bench-samplers.md}
mkdir -p "$(dirname "$OUT")"
FUSIONTUNE_BENCH_SAMPLERS=1 FUSIONTUNE_BENCH_OUT="$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")" \
  nice go test ./tuner -run '^TestSampleEfficiency$' -count=1 -v -timeout 30m
echo
cat "$OUT"
