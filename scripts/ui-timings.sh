#!/usr/bin/env bash
# ui-timings.sh — how long tune ui's pages take on a 200-trial study on
# BEIR SciFact (5,183 abstracts, 300 judged queries; embedded engine, bm25 +
# lsa-256): records the study in replay mode (TRIALS sampled trials after
# the baseline), starts `tune ui` on it and times each page with curl
# (time to the last byte over loopback; the median of REPS requests):
#   - runs, run (the 200-trial leaderboard), compare (best vs baseline),
#     dataset, judge, judge pool (the pool of the best 5 trials' top 10);
#   - (each with the ui process's CPU per request: on a busy machine the
#     wall time is mostly waiting for a core);
#   - microscope cold (the first query: starts the backend on the trial's
#     configuration), microscope on new queries (a live search with
#     explain each), and microscope re-fusing (RRF k changed: the lists are
#     cached, only fusion and scoring run), the query list filtered, and a
#     typed query not in the golden set.
#
#   ./scripts/ui-timings.sh                  # builds bin/tune, then runs
#   DATA=/work/shared/data/scifact TRIALS=200 REPS=5 ./scripts/ui-timings.sh
#
# Skips (exit 0) when the SciFact folder is absent.
set -euo pipefail
TRIALS=${TRIALS:-200}
REPS=${REPS:-5}
cd "$(dirname "$0")/.."
root=$(pwd)
data=${DATA:-$root/../shared/data/scifact}
if [ ! -f "$data/corpus.jsonl" ]; then
	echo "ui-timings: skipped: $data not found (set DATA to the SciFact folder)" >&2
	exit 0
fi
data=$(cd "$data" && pwd)
BIN=${BIN:-$root/bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
work=$(mktemp -d)
ui_pid=""
trap '[ -n "$ui_pid" ] && kill "$ui_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
cat >tune.yaml <<YAML
dataset:
  path: $data
  split: all
runs_dir: runs
labels: labels.db
backend:
  engine:
    dense: {model: lsa-256}
eval: {concurrency: 4}
YAML
cat >study.json <<JSON
{
  "seed": 1,
  "baseline": {"params": {"fusion.method": "rrf", "fusion.k": 60, "fusion.weights.bm25": 0.5, "fusion.weights.dense": 0.5}},
  "sampler": "tpe",
  "trials": $TRIALS,
  "space": {
    "fusion.k": {"type": "int", "low": 1, "high": 100},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1}
  }
}
JSON
t0=$(date +%s)
"$BIN" --experiments study.json --mode replay >/dev/null 2>study.log || { tail -20 study.log >&2; exit 1; }
echo "study: $((TRIALS + 1)) trials recorded in $(($(date +%s) - t0)) s"
run=$(ls runs | grep '^2' | tail -1)

"$BIN" judge pool "$run" --out pool.jsonl >pool.log 2>&1 || { cat pool.log >&2; exit 1; }
"$BIN" ui --listen 127.0.0.1:0 --ready-file ready --pool pool.jsonl 2>ui.log &
ui_pid=$!
for _ in $(seq 600); do [ -s ready ] && break; sleep 0.1; done
[ -s ready ] || { cat ui.log >&2; exit 1; }
base="http://$(cat ready)"

# ms URL: one request's time to the last byte in milliseconds (fails on
# a status other than 200).
ms() {
	local out code t
	out=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$1")
	code=${out% *}
	t=${out#* }
	[ "$code" = 200 ] || { echo "ui-timings: $1: HTTP $code" >&2; exit 1; }
	awk -v t="$t" 'BEGIN { printf "%.1f", t * 1000 }'
}
# cpu: the ui process's user + system CPU so far, in ms (the backend's
# own process, which answers the microscope's live searches, is not
# counted).
tick=$(getconf CLK_TCK)
cpu() { awk -v t="$tick" '{ printf "%d", ($14 + $15) * 1000 / t }' "/proc/$ui_pid/stat"; }
# median NAME URL...: the median of one request to each URL (REPS URLs or
# one URL requested REPS times), printed with the spread and the ui's CPU
# per request (the wall times include waiting for a busy machine's cores).
median() {
	local name=$1
	shift
	local urls=("$@") times=() c0
	c0=$(cpu)
	if [ ${#urls[@]} -eq 1 ]; then
		for _ in $(seq "$REPS"); do times+=("$(ms "${urls[0]}")"); done
	else
		for u in "${urls[@]}"; do times+=("$(ms "$u")"); done
	fi
	printf '%s\n' "${times[@]}" | sort -n | awk -v name="$name" -v cpu=$(($(cpu) - c0)) '{ v[NR] = $1 } END {
		printf "%-34s median %7.1f ms  (min %.1f, max %.1f, n %d)  ui CPU %.1f ms/request\n", name, v[int((NR + 1) / 2)], v[1], v[NR], NR, cpu / NR }'
}

queries=($(head -n $((REPS + 1)) "$data/queries.jsonl" | sed 's/.*"_id": *"\([^"]*\)".*/\1/'))
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
cold=$(ms "$base/microscope?run=$run&q=${queries[0]}")
echo "microscope, cold (backend start)   $cold ms"
median "runs page" "$base/"
median "run page ($((TRIALS + 1)) trials)" "$base/run/$run"
median "run page, sorted by NDCG@10" "$base/run/$run?sort=NDCG@10&desc=1"
median "compare (best vs baseline)" "$base/compare?a=$run:baseline&b=$run:%231"
urls=()
for q in "${queries[@]:1}"; do urls+=("$base/microscope?run=$run&q=$q"); done
median "microscope, new query (live)" "${urls[@]}"
median "microscope, re-fuse (k changed)" "$base/microscope?run=$run&q=${queries[1]}&k=7"
median "microscope, same page again" "$base/microscope?run=$run&q=${queries[1]}"
median "microscope, find queries" "$base/microscope?run=$run&q=${queries[1]}&find=cell+protein"
median "microscope, typed query (live)" "$base/microscope?run=$run&text=does+vitamin+d+prevent+fractures+in+older+adults"
median "judge page" "$base/judge?run=$run"
median "judge pool page ($(wc -l <pool.jsonl) pairs)" "$base/judge/pool"
median "dataset page" "$base/dataset"
