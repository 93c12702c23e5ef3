#!/usr/bin/env bash
# bench-workers.sh — wall time of one shared 30-trial TPE study on the demo
# dataset with 1 and 2 worker processes, and with --parallel 1 and 2 (backend
# replicas in one process).
#
#   make bench-workers                 # or ./scripts/bench-workers.sh
#   REPS=3 STORAGE=postgres://u@127.0.0.1:5432/db ./scripts/bench-workers.sh
#
# Every configuration runs the same experiment file (seed 11, 30 TPE trials
# over fusion.k, the BM25 weight and the fusion method, no pruning) as a
# fresh study in a fresh SQLite file (or, with STORAGE, a fresh study name in
# that database); each worker has its own directory, runs directory, cache
# and tune serve children. Each repetition prints wall/cpu: wall-clock
# seconds from the first worker's start to the last worker's exit, and the
# CPU seconds (user+sys) all of them used; REPS repetitions (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-2}
BIN=$(pwd)/bin/tune
go build -o "$BIN" ./cmd/tune
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/study.json" <<'EOF'
{
  "seed": 11,
  "sampler": "tpe",
  "trials": 30,
  "space": {
    "fusion.k": {"type": "int", "low": 5, "high": 120},
    "fusion.weights.bm25": {"type": "float", "low": 0, "high": 1},
    "fusion.method": {"type": "categorical", "choices": ["rrf", "linear"]}
  }
}
EOF

# run NAME WORKERS PARALLEL: one study, WORKERS processes with --parallel
# PARALLEL each; prints "wall/cpu" seconds (cpu: user+sys of every worker
# and tune serve child).
run() {
  local name=$1 workers=$2 parallel=$3 url t
  t=$( { TIMEFORMAT='%R %U %S'; time run1 "$name" "$workers" "$parallel" >/dev/null; } 2>&1 | tail -1)
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.1f/%.1f\n", a[1], a[2] + a[3] }'
}

run1() {
  local name=$1 workers=$2 parallel=$3 url
  url=${STORAGE:-sqlite:///$TMP/$name.db}
  local pids=()
  for w in $(seq 1 "$workers"); do
    local dir="$TMP/$name-w$w"
    mkdir -p "$dir"
    (cd "$dir" && printf 'runs_dir: runs\n' >tune.yaml &&
      XDG_CACHE_HOME="$dir/cache" "$BIN" worker --experiments "$TMP/study.json" \
        --storage "$url" --study "$name" --worker "w$w" --parallel "$parallel" \
        >"$dir/stdout" 2>"$dir/stderr") &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-34s %s\n' "configuration" "wall/cpu seconds per repetition"
for cfg in "1 worker, --parallel 1:1:1" "2 workers, --parallel 1 each:2:1" "1 worker, --parallel 2:1:2"; do
  IFS=: read -r label workers parallel <<<"$cfg"
  times=()
  for rep in $(seq 1 "$REPS"); do
    times+=("$(run "w${workers}p${parallel}r${rep}" "$workers" "$parallel")")
  done
  printf '%-34s %s\n' "$label" "${times[*]}"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
