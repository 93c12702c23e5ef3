#!/usr/bin/env bash
# bench-query.sh — the embedded engine's hybrid search as a service sees
# it: `tune serve` (bm25 + lsa-256, RRF) on ../shared/data/scifact (5,183
# abstracts, its 300 test queries cycled; the demo with hash-384 when it is
# absent), CLIENTS (default "1,4") concurrent clients on 127.0.0.1, each
# measurement REQUESTS (default 3000) searches after a warm-up: p50, p95,
# p99 latency, searches/s and the server's CPU time per search.
#
#   make bench-query
#   CLIENTS=1,4,16 REQUESTS=5000 make bench-query
#
# Targets: one client p50 <= 1 ms and p99 <= 5 ms, 4 clients
# >= 1,500 searches/s. Nothing passes or fails on a timing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
BIN=${BIN:-$root/bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
data="$root/../shared/data/scifact"
echo "bench-query: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -f "$data/corpus.jsonl" ]; then
	set -- -data "$data" -model "${MODEL:-lsa-256}"
else
	echo "bench-query: $data absent: the demo instead" >&2
	set -- -corpus experiments/demo/corpus.jsonl -queries experiments/demo/golden.json -model "${MODEL:-hash-384}"
fi
go run ./scripts/querybench -tune "$BIN" "$@" -clients "${CLIENTS:-1,4}" -requests "${REQUESTS:-3000}"
