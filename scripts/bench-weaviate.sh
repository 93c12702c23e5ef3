#!/usr/bin/env bash
# bench-weaviate.sh — the weaviate kind on SciFact (../shared/data/
# scifact: corpus, 300 test queries) loaded into a real weaviate-server
# through the weaviate kind with lsa-256 vectors (documents and queries),
# then an alpha (11) x fusionType (2) x BM25 (k1, b) (2) grid of 44 (or 55, GRID=55)
# configs scored live and by replay (each leg issued alone once per query
# and BM25 setting, fused offline with Weaviate's formula), every config and
# query verified: identical top 5, scores equal within 1e-9. Prints the
# start and load times, NDCG@10 per config, BM25-only, vector-only and the
# best fused configs, and the wall times.
#
# GRID=55 sweeps 55 configs: the 11 alphas under a fifth variant besides
# the four (relativeScoreFusion with k1 1.5, b 0.75); GRID="fusionType:k1:b
# ..." names the variants outright (each swept over the 11 alphas).
#
# Skips without ../shared/data/scifact; needs weaviate-server (WEAVIATE_BIN,
# $(go env GOPATH)/bin or PATH; see the README's "Weaviate" section).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/data/scifact ]; then
  echo "bench-weaviate: ../shared/data/scifact absent: skipping" >&2
  exit 0
fi
case "${GRID:-}" in
  "" | 44) grid="" ;;
  55) grid="rankedFusion:1.2:0.75 relativeScoreFusion:1.2:0.75 rankedFusion:0.9:0.4 relativeScoreFusion:0.9:0.4 relativeScoreFusion:1.5:0.75" ;;
  *) grid=$GRID ;;
esac
FUSIONTUNE_WEAVIATE_GRID=$grid FUSIONTUNE_WEAVIATE_BENCH=1 go test ./backend/weaviate -run '^TestSciFactGrid$' -count=1 -v -timeout 120m |
  grep -E 'scifact_test|factory|---|^(ok|FAIL|PASS)' | sed -E 's/^ +//'
