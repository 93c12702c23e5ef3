#!/usr/bin/env bash
# bench-study-replay.sh — a sampled study (TPE) in replay mode against the
# same study live, on BEIR SciFact (../shared/data/scifact: 5,183
# abstracts, 300 judged queries) with the embedded engine (bm25 + lsa-256).
#
#   make bench-study-replay                  # builds bin/tune, then runs this
#   TRIALS=200 LIVE_TRIALS=20 ./scripts/bench-study-replay.sh
#
# The study: seed SEED (1), TPE, TRIALS (200) sampled trials after the
# baseline (RRF k 60, weights 0.5/0.5) over fusion.k in [1, 100] (int) and
# fusion.weights.bm25 in [0, 1] (float; dense weight stays 0.5). Prints the
# end-to-end wall time, restarts and best trial of
#   - replay mode (one collection, every trial fused offline, the best 3
#     verified live, the winner by apply + restart), TRIALS trials;
#   - live mode (a restart per trial), LIVE_TRIALS (20) trials, and the
#     live time of TRIALS trials extrapolated linearly from it (labelled);
#     LIVE_TRIALS=TRIALS measures it instead;
# and checks that the live study and a replay study of the same budget
# (LIVE_TRIALS: the budget sets TPE's startup trials, so a longer study is
# not an extension of a shorter one) ran the same trials: same names and
# parameters, primary within 1e-9 (exit 1 otherwise).
# Skips (exit 0) when ../shared/data/scifact is absent.
set -euo pipefail
TRIALS=${TRIALS:-200}
LIVE_TRIALS=${LIVE_TRIALS:-20}
SEED=${SEED:-1}
. "$(dirname "$0")/scifact-bench.sh"
study() { # study TRIALS: the experiment file
	cat <<EOF
{
  "seed": $SEED,
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "fusion.weights.bm25": 0.5, "fusion.weights.dense": 0.5}},
  "sampler": "tpe",
  "trials": $1,
  "space": {
    "fusion.k": {"type": "int", "low": 1, "high": 100},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1}
  }
}
EOF
}
study "$TRIALS" >replay.json
study "$LIVE_TRIALS" >live.json
jq '{baseline}' replay.json >warm.json

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# sweep NAME FILE MODE: run tune, keep stderr in NAME.log and the
# leaderboard in NAME.lb.json, print wall ms.
sweep() {
	local t0 t1
	t0=$(now_ms)
	if ! "$BIN" --experiments "$2" --mode "$3" --format json >"$1.lb.json" 2>"$1.log"; then
		echo "bench-study-replay: $1 failed:" >&2
		tail -20 "$1.log" >&2
		exit 1
	fi
	t1=$(now_ms)
	echo $((t1 - t0))
}
restarts() { grep -oE '[0-9]+ backend restarts' "$1.log" | cut -d' ' -f1; }
best() { jq -r '.trials[0] | "\(.name) primary \(.primary) (k \(.params["fusion.k"]), bm25 weight \(.params["fusion.weights.bm25"]))"' "$1.lb.json"; }

echo "bench-study-replay: SciFact $(wc -l <"$data/corpus.jsonl") docs, $(wc -l <"$data/queries.jsonl") queries; bm25 + lsa-256; TPE seed $SEED; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "warming the index cache (untimed)..." >&2
sweep warm warm.json live >/dev/null
echo "replay, $TRIALS trials..." >&2
replay=$(sweep replay replay.json replay)
echo "live, $LIVE_TRIALS trials..." >&2
live=$(sweep live live.json live)
echo "replay, $LIVE_TRIALS trials (for the comparison)..." >&2
small=$(sweep replay-small live.json replay)

awk -v r="$replay" -v l="$live" -v s="$small" -v n="$TRIALS" -v m="$LIVE_TRIALS" -v rr="$(restarts replay)" -v lr="$(restarts live)" 'BEGIN {
	printf "replay %4d trials + baseline: %7.1f s wall, %s backend restarts\n", n, r / 1000, rr
	printf "live   %4d trials + baseline: %7.1f s wall, %s backend restarts (%.0f ms a trial)\n", m, l / 1000, lr, l / (m + 1)
	printf "replay %4d trials + baseline: %7.1f s wall (the run compared with the live one)\n", m, s / 1000
	if (m != n) {
		x = l / (m + 1) * (n + 1)
		printf "live   %4d trials + baseline: %7.1f s wall EXTRAPOLATED (linear from %d trials, not measured)\n", n, x / 1000, m
	} else {
		x = l
	}
	printf "speed-up at %d trials: %.1fx%s\n", n, x / r, (m != n ? " (against the extrapolation)" : "")
}'
echo "best, replay ($TRIALS trials): $(best replay)"
echo "best, live ($LIVE_TRIALS trials): $(best live)"
echo "best, replay ($LIVE_TRIALS trials): $(best replay-small)"
echo "replay log ($TRIALS trials):"
grep -h '^replay: \|^verified ' replay.log | sed 's/^/  /'

echo "replay trials verified live: $(jq '[.trials[] | select(.mode == "verified")] | length' replay.lb.json)"

# The live study must be the replay study of the same budget.
jq -r '.trials[] | [.name, (.params | tojson), .primary] | @tsv' live.lb.json | sort >live.tsv
jq -r '.trials[] | [.name, (.params | tojson), .primary] | @tsv' replay-small.lb.json | sort >replay.tsv
if ! join -t $'\t' -j1 <(awk -F'\t' '{print $1"|"$2"\t"$3}' live.tsv | sort) <(awk -F'\t' '{print $1"|"$2"\t"$3}' replay.tsv | sort) |
	awk -F'\t' -v want="$(wc -l <live.tsv)" '{ d = $2 - $3; if (d < 0) d = -d; if (d > 1e-9) bad++; n++ }
		END { printf "live trials found in the replay study of the same budget with the same parameters and primary (1e-9): %d of %d\n", n - bad, want; exit (n == want && bad == 0 ? 0 : 1) }'; then
	echo "bench-study-replay: the live study differs from the replay study of the same budget" >&2
	exit 1
fi
