#!/usr/bin/env bash
# bench-eval.sh — time `tune eval` on a generated 5,000-query x 1,000-document
# run (5 million lines) and its qrels. Nothing is committed: the data is
# generated deterministically into a temporary directory and removed.
#
#   make bench-eval                     # builds bin/tune, then runs this
#   QUERIES=500 ./scripts/bench-eval.sh # smaller
#
# Prints the floor (awk splitting every field of the run) and wall time,
# CPU time and peak RSS for the default measures, for -q and for
# -m all_trec. Targets on 2 cores: at most 1.5x the floor's wall time and
# 59 MB peak RSS (0.15x the C trec_eval's 394 MB on this input);
# docs/benchmarks.md has the latest figures.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/tune}
QUERIES=${QUERIES:-5000}
DOCS=${DOCS:-1000}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "bench-eval: /usr/bin/time missing; install it with: apt-get install -y time" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run ./scripts/gentrec -out "$tmp" -queries "$QUERIES" -docs "$DOCS"
echo "input: $(wc -l <"$tmp/run.txt") run lines ($(du -h "$tmp/run.txt" | cut -f1)), $(wc -l <"$tmp/qrels.txt") qrels lines; $(nproc) cores"
measure() {
	local label=$1
	shift
	if ! "$TIME" -v "$BIN" eval --qrels "$tmp/qrels.txt" --run "$tmp/run.txt" "$@" >"$tmp/out" 2>"$tmp/time"; then
		echo "bench-eval: tune eval failed:" >&2
		grep -v '^\s' "$tmp/time" >&2
		exit 1
	fi
	local wall rss
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
	cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$tmp/time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$tmp/time")
	printf '%-14s wall %s  cpu %ss  max RSS %s MB  (%s output lines)\n' "$label" "$wall" "$cpu" "$rss" "$(wc -l <"$tmp/out")"
}
floor=$( { "$TIME" -f '%E %U %S' awk '{n += NF} END {print n}' "$tmp/run.txt" >/dev/null; } 2>&1)
echo "$floor" | awk '{printf "%-14s wall %s  cpu %.2fs\n", "floor (awk)", $1, $2 + $3}'
measure "official"
measure "official -q" -q
measure "all_trec" -m all_trec
