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
# Then the decision: with 80% of each query's judgments hidden (seeds 1, 2,
# 3), how many pairs the file judge is asked, in rounds of 10 (demo) or 50
# (NFCorpus, ../shared/data/nfcorpus), until the promotion decision (ship
# the leader or keep the baseline) is the one the full judgments give, by
# depth pooling (the five leading trials' top 20) and by decision pooling
# (tune judge pool --strategy decision).
#
# SciFact and NFCorpus are skipped (with a note) when absent.
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
"$work/judgerecovery" -tune "$BIN" -data "$work/demo-beir" -out "$work/demo-strategies" -name demo -strategies -hide 0.8 -seeds 1,2,3 -round-budget 10 2>"$work/demo-strategies.log"
engine=$(printf 'cache_dir: %s\nretrievers: [bm25, dense]\ndense: {model: lsa-256}' "${TMPDIR:-/tmp}/fusiontune-beir-lsa-cache")
nfcorpus="$root/../shared/data/nfcorpus"
if [ -d "$nfcorpus" ]; then
	"$work/judgerecovery" -tune "$BIN" -data "$nfcorpus" -out "$work/nfcorpus-strategies" -name NFCorpus -strategies -hide 0.8 -seeds 1,2,3 -round-budget 50 -engine "$engine" 2>"$work/nfcorpus-strategies.log"
else
	echo "judge-recovery: $nfcorpus absent: NFCorpus skipped" >&2
fi
scifact="$root/../shared/data/scifact"
if [ ! -d "$scifact" ]; then
	echo "judge-recovery: $scifact absent: SciFact skipped" >&2
	exit 0
fi
for rb in 0 100; do
	"$work/judgerecovery" -tune "$BIN" -data "$scifact" -out "$work/scifact-$rb" -name scifact -round-budget "$rb" -engine "$engine" 2>"$work/scifact-$rb.log"
done
