#!/usr/bin/env bash
# adapt-scifact.sh — query-adaptive fusion on BEIR SciFact
# (../shared/data/scifact: 5,183 abstracts, 300 judged queries) with the
# embedded engine's two built-in embedders (lsa-256, hash-256): a replayed
# sweep of scripts/adapt-scifact.json (dense.model x RRF k in
# {10,20,40,60,80} x bm25 weight in {0,...,1}, dense weight 1 - bm25),
# then `tune adapt` on its two replay groups: held-out NDCG@10 of the best
# global setting, the learned policy and the per-query oracle (5-fold
# cross-validation over queries, seed 1), the paired test, the decision,
# the learned rules and the one-feature diagnostics; then the same with a
# shallower tree (--levels 1 --min-leaf 60), a deeper one (--levels 3
# --min-leaf 20) and 10 folds with another seed.
#
#   scripts/adapt-scifact.sh           # builds bin/tune when missing
#
# Skips (exit 0) when ../shared/data/scifact is absent.
set -euo pipefail
. "$(dirname "$0")/scifact-bench.sh"
"$BIN" --experiments "$root/scripts/adapt-scifact.json" --mode replay --format json >sweep.json 2>sweep.log || {
	echo "adapt-scifact: the sweep failed:" >&2
	tail -20 sweep.log >&2
	exit 1
}
echo "== tune adapt latest (defaults: --folds 5 --seed 1 --levels 2 --min-leaf 30)"
"$BIN" adapt latest
for o in "--levels 1 --min-leaf 60" "--levels 3 --min-leaf 20" "--folds 10 --seed 2"; do
	echo
	echo "== tune adapt latest $o"
	# shellcheck disable=SC2086
	"$BIN" adapt latest $o | grep -E 'replay group|best global setting  |learned policy  |oracle|decision'
done
