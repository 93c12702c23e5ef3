#!/usr/bin/env bash
# bench-overhead.sh — the tuner's own overhead on a live demo sweep, as
# the `time:` line accounts it (wall time minus the backend's start/stop
# and search calls): RUNS (default 5) live sweeps of
# experiments/shortlist.json on the shipped demo with BIN (default
# bin/tune), alternating with BASE when it is set (another build of tune,
# for a before/after on the same machine at the same time). Each run goes
# to a fresh temporary runs directory.
#
#   make bench-overhead                                   # bin/tune alone
#   BASE=/tmp/tune-old RUNS=7 make bench-overhead         # before/after
#
# Prints each build's overhead share (%) and seconds, sorted, with their
# medians, and its wall times. Target: <= 2% of the wall time.
# Nothing passes or fails on a timing: exit 1 only when a sweep fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BIN=${BIN:-$root/bin/tune}
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/tune
RUNS=${RUNS:-5}
case $RUNS in '' | *[!0-9]* | 0) echo "bench-overhead: RUNS must be a positive integer (got '$RUNS')" >&2; exit 2 ;; esac
builds=("$BIN")
if [ -n "${BASE:-}" ]; then
	[ -x "$BASE" ] || { echo "bench-overhead: BASE=$BASE is not an executable" >&2; exit 2; }
	builds=("$BASE" "$BIN")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bench-overhead: $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs per build" >&2
for i in $(seq "$RUNS"); do
	for k in "${!builds[@]}"; do
		b=${builds[$k]}
		if ! "$b" --experiments experiments/shortlist.json --mode live --runs-dir "$tmp/runs-$k-$i" >/dev/null 2>"$tmp/log"; then
			echo "bench-overhead: $b failed:" >&2
			tail -20 "$tmp/log" >&2
			exit 1
		fi
		line=$(grep '^time:' "$tmp/log")
		share=$(sed -E 's/.*tuner overhead \(([0-9.]+)%.*/\1/' <<<"$line")
		secs=$(sed -E 's/.* ([0-9.]+)s tuner overhead.*/\1/' <<<"$line")
		wall=$(sed -E 's/^time: ([0-9.]+)s wall.*/\1/' <<<"$line")
		echo "$k $share $secs $wall" >>"$tmp/results"
		echo "bench-overhead: run $i, $b: $line" >&2
	done
done
# median FIELD K: the median of field FIELD of build K's results.
median() { awk -v k="$2" -v f="$1" '$1 == k { print $f }' "$tmp/results" | sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sorted() { awk -v k="$2" -v f="$1" '$1 == k { print $f }' "$tmp/results" | sort -n | tr '\n' ' '; }
for k in "${!builds[@]}"; do
	echo "${builds[$k]}:"
	echo "  overhead share: $(sorted 2 "$k")(median $(median 2 "$k")%; target <= 2%)"
	echo "  overhead:       $(sorted 3 "$k")(median $(median 3 "$k") s)"
	echo "  wall:           $(sorted 4 "$k")(median $(median 4 "$k") s)"
done
