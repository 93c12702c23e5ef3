#!/usr/bin/env bash
# bench-scale.sh — the embedded engine at scale: `tune serve` (bm25 +
# lsa-128, whole documents) on generated corpora of SIZES documents
# (default "20000 100000"): ../shared/data/scifact's corpus replicated with
# new ids ("<id>-r<copy>"), or synthetic text when it is absent.
#
#   make bench-scale                      # builds bin/tune, then runs this
#   SIZES=20000 RUNS=3 make bench-scale   # one size, three cold+warm pairs
#   SIZES=1000000 make bench-scale        # a million documents (1.6 GB of
#                                         # corpus in TMPDIR, ~6 GB of memory)
#
# For each size and run it prints one line: the cold start (empty cache:
# index and fit + embed) wall time until the ready file appears and its
# peak RSS and CPU time (/usr/bin/time -v, after 50 searches), then a warm restart on
# the same cache: wall time, its share of the cold start, and peak RSS.
# Targets on 2 cores: 100k documents cold <= 15 s and <= 700 MB peak, a
# million <= 3 minutes and <= 6 GB, warm <= 10% of cold. Nothing here
# passes or fails on a timing; exit 1 only when tune serve fails or a
# search is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
BIN=${BIN:-$root/bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench-scale: /usr/bin/time missing (apt-get install -y time)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench-scale: curl missing" >&2; exit 1; }
SIZES=${SIZES:-20000 100000}
RUNS=${RUNS:-1}
MODEL=${MODEL:-lsa-128}
data="$root/../shared/data/scifact"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# corpus N FILE: N documents as BEIR JSON lines.
corpus() {
	if [ -f "$data/corpus.jsonl" ]; then
		local per copies r
		per=$(wc -l <"$data/corpus.jsonl")
		copies=$((($1 + per - 1) / per))
		for r in $(seq 0 $((copies - 1))); do
			sed "s/^{\"_id\": \"\([^\"]*\)\"/{\"_id\": \"\1-r$r\"/" "$data/corpus.jsonl"
		done | awk -v n="$1" 'NR <= n' >"$2"
	else
		# Synthetic: 200 words per document from a 20,000-word Zipf-ish
		# vocabulary, deterministic (awk's srand(1)).
		awk -v n="$1" 'BEGIN { srand(1)
			for (d = 0; d < n; d++) {
				t = ""
				for (w = 0; w < 200; w++) { k = int(20000 ^ rand()); t = t " w" k }
				printf "{\"_id\": \"s%d\", \"title\": \"doc %d\", \"text\": \"%s\"}\n", d, d, substr(t, 2)
			}
		}' >"$2"
	fi
}

# queries: 50 search bodies.
queries() {
	if [ -f "$data/queries.jsonl" ]; then
		head -n 50 "$data/queries.jsonl" | sed 's/.*"text": *"\([^"]*\)".*/{"query": "\1", "k": 10}/'
	else
		for i in $(seq 1 50); do echo "{\"query\": \"w$i w$((i * 7)) w$((i * 13))\", \"k\": 10}"; done
	fi
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start NAME CONFIG: run tune serve under /usr/bin/time until ready, send
# the 50 searches, stop it; sets wall (ms to ready), cpu (user + system
# seconds of the whole run: robust to a loaded machine) and rss (peak, MB).
start() {
	local name=$1 cfg=$2 t0 t1 tpid pid addr
	rm -f "$work/$name.ready"
	t0=$(now_ms)
	"$TIME" -v -o "$work/$name.time" "$BIN" serve --config "$cfg" --listen 127.0.0.1:0 \
		--ready-file "$work/$name.ready" 2>"$work/$name.log" &
	tpid=$!
	while [ ! -s "$work/$name.ready" ]; do
		if ! kill -0 "$tpid" 2>/dev/null; then
			echo "bench-scale: tune serve ($name) exited before ready:" >&2
			tail -20 "$work/$name.log" >&2
			exit 1
		fi
		sleep 0.05
	done
	t1=$(now_ms)
	addr=$(cat "$work/$name.ready")
	while read -r body; do
		if ! curl -sf -o /dev/null -H 'Content-Type: application/json' -d "$body" "http://$addr/search"; then
			echo "bench-scale: search refused ($name): $body" >&2
			exit 1
		fi
	done <"$work/queries.jsonl"
	pid=$(pgrep -P "$tpid")
	kill -TERM "$pid"
	wait "$tpid" || true
	wall=$((t1 - t0))
	rss=$(awk '/Maximum resident set size/ { printf "%d", $NF / 1024 }' "$work/$name.time")
	cpu=$(awk '/(User|System) time \(seconds\)/ { s += $NF } END { printf "%.1f", s }' "$work/$name.time")
}

queries >"$work/queries.jsonl"
echo "bench-scale: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), model $MODEL, corpus $([ -f "$data/corpus.jsonl" ] && echo "scifact replicated" || echo synthetic)"
for n in $SIZES; do
	corpus "$n" "$work/corpus-$n.jsonl"
	for run in $(seq 1 "$RUNS"); do
		cache="$work/cache-$n-$run"
		cat >"$work/engine-$n.yaml" <<YAML
corpus:
  path: $work/corpus-$n.jsonl
retrievers: [bm25, dense]
dense:
  model: $MODEL
cache_dir: $cache
YAML
		start "cold-$n-$run" "$work/engine-$n.yaml"
		cold=$wall coldrss=$rss coldcpu=$cpu
		start "warm-$n-$run" "$work/engine-$n.yaml"
		warm=$wall warmrss=$rss warmcpu=$cpu
		grep -q 'bm25_cached=true dense_cached=true' "$work/warm-$n-$run.log" ||
			{ echo "bench-scale: the warm restart rebuilt:" >&2; grep ready "$work/warm-$n-$run.log" >&2; exit 1; }
		awk -v n="$n" -v r="$run" -v c="$cold" -v cr="$coldrss" -v w="$warm" -v wr="$warmrss" -v cc="$coldcpu" -v wc="$warmcpu" 'BEGIN {
			printf "bench-scale: %d docs run %d: cold %.1f s (cpu %.1f s), peak RSS %d MB; warm %.2f s (cpu %.1f s, %.1f%% of cold), peak RSS %d MB\n",
				n, r, c / 1000, cc, cr, w / 1000, wc, 100 * w / c, wr }'
		rm -rf "$cache"
	done
	rm -f "$work/corpus-$n.jsonl"
done
