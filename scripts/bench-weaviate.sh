#!/usr/bin/env bash
# bench-weaviate.sh — the Weaviate show of issue 20: SciFact (../shared/data/
# scifact: corpus, 300 test queries) loaded into a real weaviate-server
# through the weaviate kind with lsa-256 vectors (documents and queries),
# then an alpha (11) x fusionType (2) x BM25 (k1, b) (2) grid of 44
# configs scored live and by replay (each leg issued alone once per query
# and BM25 setting, fused offline with Weaviate's formula), every config and
# query verified: identical top 5, scores equal within 1e-9. Prints the
# start and load times, NDCG@10 per config, BM25-only, vector-only and the
# best fused configs, and the wall times.
#
# Skips without ../shared/data/scifact; needs weaviate-server (WEAVIATE_BIN,
# $(go env GOPATH)/bin or PATH; see the README's "Weaviate" section).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d ../shared/data/scifact ]; then
  echo "bench-weaviate: ../shared/data/scifact absent: skipping" >&2
  exit 0
fi
FUSIONTUNE_WEAVIATE_BENCH=1 go test ./backend/weaviate -run '^TestSciFactGrid$' -count=1 -v -timeout 60m |
  grep -E 'scifact_test|factory|---|^(ok|FAIL|PASS)' | sed -E 's/^ +//'
