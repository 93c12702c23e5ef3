# scifact-bench.sh — sourced by the SciFact benchmarks (bench-replay.sh,
# bench-study-replay.sh): checks for the shared data, bin/tune and jq, then
# enters a temporary directory (removed at exit) holding a tune.yaml for
# the embedded engine (bm25 + lsa-256) on SciFact. Sets root, data and BIN.
# Exits 0 (skipped) when ../shared/data/scifact is absent.
bench=$(basename "$0" .sh)
cd "$(dirname "$0")/.."
root=$(pwd)
data="$root/../shared/data/scifact"
if [ ! -f "$data/corpus.jsonl" ]; then
	echo "$bench: skipped: $data not found (the shared SciFact data is not in this checkout)" >&2
	exit 0
fi
data=$(cd "$data" && pwd)
BIN=${BIN:-$root/bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
command -v jq >/dev/null || { echo "$bench: jq missing (apt-get install -y jq)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# split: all — the benchmarks time sweeps over all 300 queries (with 100
# judged queries or more a sweep would otherwise select on a dev half and
# confirm on the other).
cat >tune.yaml <<YAML
dataset:
  path: $data
  split: all
runs_dir: runs
backend:
  engine:
    dense: {model: lsa-256}
eval: {concurrency: 4}
YAML
