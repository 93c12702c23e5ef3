#!/usr/bin/env bash
# make check-leaderboards: the demo shortlist in live and replay modes and
# the shipped sampled study (live and replay) must write leaderboard.json
# byte-identical to the copies recorded in scripts/testdata/leaderboards/.
# A refactoring that changes any number, rank, label or seed shows here.
# UPDATE=1 records the current output as the new reference (say why in the
# commit).
set -euo pipefail
cd "$(dirname "$0")/.."
ref=scripts/testdata/leaderboards
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
check() { # name, then tune's arguments
  local name=$1; shift
  if ! bin/tune --runs-dir "$tmp/$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    echo "check-leaderboards: $name: tune exited non-zero; its stderr:" >&2
    tail -20 "$tmp/$name.err" >&2
    status=1
    return
  fi
  local got
  got=$(ls "$tmp/$name"/*/leaderboard.json)
  if [ "${UPDATE:-}" = 1 ]; then
    cp "$got" "$ref/$name.json"
    echo "check-leaderboards: $name: recorded" >&2
  elif cmp -s "$got" "$ref/$name.json"; then
    echo "check-leaderboards: $name: identical" >&2
  else
    echo "check-leaderboards: $name: leaderboard.json differs from $ref/$name.json:" >&2
    diff "$ref/$name.json" "$got" | head -20 >&2 || true
    status=1
  fi
}
check shortlist-live   --experiments experiments/shortlist.json --mode live
check shortlist-replay --experiments experiments/shortlist.json --mode replay
check study-live       --experiments experiments/study.yaml --mode live
check study-replay     --experiments experiments/study.yaml --mode replay
exit $status
