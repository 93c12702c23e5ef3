#!/usr/bin/env bash
# bench-postgres.sh — the postgres backend kind (PostgreSQL 15 + pgvector)
# on BEIR SciFact (../shared/data/scifact: 5,183 abstracts, 300 judged test
# queries), lsa-256 vectors for documents and queries alike.
#
#   make bench-postgres        # builds bin/tune, then runs this
#
# Starts a throwaway cluster (initdb, pg_ctl; as user postgres when run as
# root) and prints:
#   - start time of the cluster, load time of the table (tsvector + GIN,
#     vector + HNSW) as the tune log reports it;
#   - --apply-best of the baseline, then of the best of the 55-config grid
#     of scripts/bench-replay.json (RRF k x bm25 weight) swept in replay
#     mode (wall time, the replay log: collection, verification of the top
#     3 live, replay = live within 1e-9), then tune rollback: the
#     parameters file and the definition of hybrid_search
#     (pg_get_functiondef) byte-identical to before (exit 1 if not);
#   - NDCG@10 of lexical only (ts_rank_cd: cover density, NOT BM25), vector
#     only and the best fused config (a bm25 or dense weight of 0 leaves one
#     retriever, whose RRF order is its own);
#   - the same grid in live mode: wall time, and the top 5 of both
#     leaderboards, which must be identical (exit 1 if not).
# GRID_K="60" restricts the grid to those RRF k values (11 configs for one).
# Skips (exit 0) when ../shared/data/scifact is absent.
set -euo pipefail
bench=bench-postgres
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
pgbin=/usr/lib/postgresql/15/bin
[ -x "$pgbin/initdb" ] || { echo "$bench: PostgreSQL 15 missing (apt-get install -y postgresql-15)" >&2; exit 1; }
[ -f /usr/lib/postgresql/15/lib/vector.so ] || { echo "$bench: pgvector missing (scripts/install-pgvector.sh)" >&2; exit 1; }

work=$(mktemp -d)
chmod 755 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
cleanup() {
	as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/pg"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
t0=$(now_ms)
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust -N -E UTF8 --locale=C >/dev/null
as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w -o "-c listen_addresses=127.0.0.1 -p $port -k $work/pg" start >/dev/null
t1=$(now_ms)
psql() { "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
psql -c "CREATE EXTENSION vector"
echo "$bench: SciFact $(wc -l <"$data/corpus.jsonl") docs, $(wc -l <"$data/queries.jsonl") queries; PostgreSQL $(psql -c 'SHOW server_version'), pgvector $(psql -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'"); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cluster initdb + start: $((t1 - t0)) ms"

cd "$work"
mkdir prod
cat >tune.yaml <<YAML
dataset:
  path: $data
  split: all
runs_dir: runs
backend:
  kind: postgres
  config: prod/hybrid_search.yaml
  postgres:
    url: postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable
    model: lsa-256
eval: {concurrency: 4}
YAML
exp55="$root/scripts/bench-replay.json"
# GRID_K="60" (a list of RRF k values) restricts the grid, e.g. to its 11
# weights at k = 60 when a live sweep of all 55 configs would take too long.
if [ -n "${GRID_K:-}" ]; then
	jq --argjson k "[${GRID_K// /,}]" '.grid["fusion.k"] = $k' "$exp55" >grid.json
	exp55="$work/grid.json"
fi
n=$(jq '(.grid["fusion.k"] | length) * (.grid["fusion.weights"] | length)' "$exp55")
echo "grid: $n configs ($(jq -c '.grid["fusion.k"]' "$exp55") RRF k x $(jq '.grid["fusion.weights"] | length' "$exp55") weights)"

# sweep NAME MODE [flags]: run the grid, keep stderr in NAME.log, print wall ms.
sweep() {
	local name=$1 mode=$2 t0 t1
	shift 2
	t0=$(now_ms)
	if ! "$BIN" --experiments "$exp55" --mode "$mode" --format json "$@" >"$name.lb.json" 2>"$name.log"; then
		echo "$bench: $name failed:" >&2
		tail -20 "$name.log" >&2
		exit 1
	fi
	t1=$(now_ms)
	# The run's own leaderboard.json (with --apply-best stdout also holds
	# the promotion's lines).
	cp "$(sed -nE 's/.*run directory ([^ ]+).*/\1/p' "$name.log" | tail -1)/leaderboard.json" "$name.lb.json"
	echo $((t1 - t0))
}
top5() { jq -r '.trials[:5][] | "\(.rank). \(.name) \(.primary)"' "$1"; }

# Promotion and rollback: the application's parameters byte-identical.
state() { { cat prod/hybrid_search.yaml 2>/dev/null || echo "(no file)"; psql -c "SELECT pg_get_functiondef('hybrid_search'::regproc)" 2>/dev/null || echo "(no function)"; } >"$1"; }
jq '{name, baseline}' "$exp55" >first.json
echo "promoting the baseline (a live sweep of 1 config; loads the table)..." >&2
"$BIN" --experiments first.json --apply-best --force >/dev/null 2>first.log || { tail -20 first.log >&2; exit 1; }
echo "table load (tune's log): $(grep -m1 'postgres: loaded' first.log)"
state before
echo "promoted the baseline: hybrid_search($(psql -c "SELECT pg_get_function_arguments('hybrid_search'::regproc)"))"

echo "replay, $n configs, --apply-best..." >&2
replay=$(sweep replay replay --apply-best --force)
state promoted
echo "replay sweep, $n configs (1 collection, $n fused offline, the top 3 verified live, the winner applied and promoted): $(awk -v r="$replay" 'BEGIN { printf "%.1f", r / 1000 }') s"
grep -E '^replay: |^verified' replay.log | sed 's/^/  /'
verified=$(grep -c '^verified' replay.log || true)
shared=$(grep -c '(one pass for' replay.log || true)
echo "live verification passes: $((verified - shared + (shared > 0 ? 1 : 0))) for $verified trials"
echo "hybrid_search after --apply-best: ($(psql -c "SELECT pg_get_function_arguments('hybrid_search'::regproc)"))"
"$BIN" rollback >/dev/null 2>rollback.log || { tail -20 rollback.log >&2; exit 1; }
state after
status=0
if cmp -s before promoted; then
	echo "the promotion changed nothing (the baseline won?)" >&2
	status=1
fi
if cmp -s before after; then
	echo "rollback: parameters file and hybrid_search definition byte-identical to before the promotion: yes ($(wc -c <before) bytes)"
else
	echo "rollback: NOT byte-identical:" >&2
	diff before after >&2 || true
	status=1
fi

lex=$(jq -r '.trials[] | select(.params["fusion.weights.dense"] == 0 and .params["fusion.k"] == 60) | .scorecard["NDCG@10"]' replay.lb.json)
vec=$(jq -r '.trials[] | select(.params["fusion.weights.bm25"] == 0 and .params["fusion.k"] == 60) | .scorecard["NDCG@10"]' replay.lb.json)
best=$(jq -r '[.trials[] | select(.params["fusion.weights.bm25"] > 0 and .params["fusion.weights.dense"] > 0)] | max_by(.scorecard["NDCG@10"]) | "\(.scorecard["NDCG@10"]) (\(.name))"' replay.lb.json)
echo "NDCG@10: lexical only (ts_rank_cd, not BM25) $lex; vector only (lsa-256) $vec; best fused $best"

echo "live, $n configs..." >&2
live=$(sweep live live)
echo "live sweep, $n configs: $(awk -v l="$live" 'BEGIN { printf "%.1f", l / 1000 }') s (replay $(awk -v l="$live" -v r="$replay" 'BEGIN { printf "%.1f", l / r }')x faster)"
top5 replay.lb.json >top.replay
top5 live.lb.json >top.live
echo "top 5, replay (rank, trial, primary):"
sed 's/^/  /' top.replay
echo "top 5, live:"
sed 's/^/  /' top.live
if cmp -s top.replay top.live; then
	echo "top 5 identical (names, order and primary scores): yes"
else
	echo "top 5 identical: NO" >&2
	status=1
fi
echo "tables left: $(psql -c "SELECT string_agg(tablename, ', ') FROM pg_tables WHERE tablename LIKE 'fusiontune%'")"
exit $status
