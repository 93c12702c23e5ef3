#!/usr/bin/env bash
# judge-recovery.sh — the honest recovery experiment of judge-as-you-tune
# (scripts/judgerecovery): on the shipped demo (exported as a BEIR folder by
# `tune export`) and on BEIR SciFact (../shared/data/scifact: its test qrels,
# all 300 queries, --split all; the folder ships no dev qrels), hide half of
# each query's judgments (seed 1), run a replayed fusion grid (27 trials) with
# the embedded engine on the other half, then pool the best 5 trials' unjudged
# top-10 hits and judge them with the file judge reading the hidden half,
# two rounds; once judging the whole pool each round, once at most 100 pairs
# a round (highest priority first). Prints, per stage, the Kendall tau
# between the trials' order under the full judgments and the order then, the
# pairs asked and the labels gained.
#
#   make judge-recovery        # or: ./scripts/judge-recovery.sh
#
# SciFact is skipped (with a note) when ../shared/data/scifact is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BIN=${BIN:-bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/judgerecovery" ./scripts/judgerecovery
export XDG_CACHE_HOME="$work/cache"
(cd "$work" && "$BIN" export --format beir --out demo-beir >/dev/null)
for rb in 0 100; do
	"$work/judgerecovery" -tune "$BIN" -data "$work/demo-beir" -out "$work/demo-$rb" -name demo -round-budget "$rb" 2>"$work/demo-$rb.log"
done
scifact="$root/../shared/data/scifact"
if [ ! -d "$scifact" ]; then
	echo "judge-recovery: $scifact absent: SciFact skipped" >&2
	exit 0
fi
engine=$(printf 'cache_dir: %s\nretrievers: [bm25, dense]\ndense: {model: lsa-256}' "${TMPDIR:-/tmp}/fusiontune-scifact-lsa-cache")
for rb in 0 100; do
	"$work/judgerecovery" -tune "$BIN" -data "$scifact" -out "$work/scifact-$rb" -name scifact -round-budget "$rb" -engine "$engine" 2>"$work/scifact-$rb.log"
done
