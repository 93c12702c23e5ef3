#!/usr/bin/env bash
# bench-eval.sh — time `tune eval` on a generated 5,000-query x 1,000-document
# run (5 million lines) and its qrels. Nothing is committed: the data is
# generated deterministically into a temporary directory and removed.
#
#   make bench-eval                     # builds bin/tune, then runs this
#   QUERIES=500 ./scripts/bench-eval.sh # smaller
#   TREC_EVAL=/path/to/trec_eval make bench-eval  # side by side with it
#
# Prints the floor (awk splitting every field of the run) and wall time,
# CPU time and peak RSS for the default measures, for -q and for
# -m all_trec. With TREC_EVAL (default: trec_eval on PATH, if any) each
# is also run by the C trec_eval, whose output must be byte-identical
# (exit 1 if not; -m all_trec is compared on the measures tune eval
# implements: it warns of infAP, G, ndcg_rel, Rndcg and rbp), with the
# ratios of wall time and peak RSS. Targets on
# 2 cores: at most 1.5x the floor's wall time, at least 10x faster than
# trec_eval and at most 0.15x its peak RSS; docs/benchmarks.md has the
# latest figures.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/tune}
QUERIES=${QUERIES:-5000}
DOCS=${DOCS:-1000}
TREC_EVAL=${TREC_EVAL:-$(command -v trec_eval || true)}
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
# timed LABEL OUT CMD...: run CMD with stdout in OUT, print its wall
# time, CPU time and peak RSS; leave them in $wall and $rss.
timed() {
	local label=$1 out=$2 cpu
	shift 2
	if ! "$TIME" -f '%e %U %S %M' -o "$tmp/time" "$@" >"$out" 2>"$tmp/err"; then
		echo "bench-eval: $label failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	read -r wall u s rss <"$tmp/time"
	rss=$((rss / 1024))
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
	printf '%-20s wall %5.2fs  cpu %ss  max RSS %4d MB  (%s output lines)\n' "$label" "$wall" "$cpu" "$rss" "$(wc -l <"$out")"
}
# measure LABEL ARGS...: tune eval with ARGS, then trec_eval with the same.
measure() {
	local label=$1 tw trss
	shift
	timed "$label" "$tmp/tune.out" "$BIN" eval --qrels "$tmp/qrels.txt" --run "$tmp/run.txt" "$@"
	[ -n "$TREC_EVAL" ] || return 0
	tw=$wall trss=$rss
	timed "  trec_eval" "$tmp/trec.out" "$TREC_EVAL" "$@" "$tmp/qrels.txt" "$tmp/run.txt"
	# The measures tune eval does not implement (it warns of them) are
	# left out of trec_eval's output before the two are compared.
	awk 'NR == FNR { m[$1] = 1; next } $1 in m' "$tmp/tune.out" "$tmp/trec.out" >"$tmp/trec.same"
	if ! cmp -s "$tmp/tune.out" "$tmp/trec.same"; then
		echo "bench-eval: $label: tune eval's output differs from trec_eval's" >&2
		exit 1
	fi
	awk -v tw="$tw" -v w="$wall" -v tr="$trss" -v r="$rss" -v n="$(wc -l <"$tmp/tune.out")" -v m="$(wc -l <"$tmp/trec.out")" 'BEGIN {
		printf "  %s; tune eval %.1fx faster, %.2fx the memory\n", n == m ? "identical output" : "identical on the lines tune eval prints", w / tw, tr / r }'
}
floor=$( { "$TIME" -f '%e %U %S' awk '{n += NF} END {print n}' "$tmp/run.txt" >/dev/null; } 2>&1)
echo "$floor" | awk '{printf "%-20s wall %5.2fs  cpu %.2fs\n", "floor (awk)", $1, $2 + $3}'
[ -n "$TREC_EVAL" ] || echo "bench-eval: no trec_eval (TREC_EVAL or PATH): tune eval alone"
measure "official"
measure "official -q" -q
measure "all_trec" -m all_trec
