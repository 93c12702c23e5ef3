#!/usr/bin/env bash
# make fuzz [FUZZTIME=10m]: run every FuzzXxx target of the module, one
# after another, for the given time each (default 30s). Not for CI.
#
#   ./scripts/fuzz.sh 10m              # every target, 10 minutes each
#   ./scripts/fuzz.sh 1m ./runs        # only the targets of some packages
#   FUZZ='Golden|BEIR' ./scripts/fuzz.sh 10m   # only targets matching a regexp
#
# The parsers of user files each have a target: golden JSON
# (FuzzParseGoldenSetJSON), native golden YAML (FuzzParseGoldenSetYAML),
# BEIR corpus (FuzzReadJSONL), queries and TREC topics (FuzzParseTopics),
# BEIR qrels (FuzzParseBEIRQrels), a whole BEIR folder (FuzzLoadBEIR),
# TREC qrels (FuzzReadQrels, FuzzParseJudgments), TREC run files
# (FuzzReadRun), experiment files (FuzzParseExperimentFile), search spaces
# through the sampler (FuzzSearchSpace) and the settings decoder, tune.yaml
# (FuzzLoadSettings), and query logs (FuzzRead, internal/querylog).
#
# Each target runs under nice with -parallel=$FUZZPARALLEL (default 1: the
# machine is shared) and logs to $FUZZLOG/<package>.<target>.log (default
# /tmp/fusiontune-fuzz). A summary line per target is printed at the end:
# execs, new interesting inputs, and FAIL when a crasher was found (the
# crasher is saved under the package's testdata/fuzz/<target>/; fix it and
# commit it as a regression input).
set -uo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)
logdir=${FUZZLOG:-/tmp/fusiontune-fuzz}
mkdir -p "$logdir"
summary=()
failed=0
for pkg in $(go list "${pkgs[@]}"); do
  for f in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' | grep -E -- "${FUZZ:-.}" || true); do
    log="$logdir/$(basename "$pkg").$f.log"
    echo "== $pkg $f ($t) -> $log" >&2
    if nice -n 19 go test -run '^$' -fuzz "^$f\$" -fuzztime "$t" -parallel "${FUZZPARALLEL:-1}" "$pkg" >"$log" 2>&1; then
      status=ok
    else
      status=FAIL
      failed=1
    fi
    last=$(grep -E '^fuzz: elapsed' "$log" | tail -1 | sed -E 's/.*execs: ([0-9]+).*new interesting: ([0-9]+).*/execs \1, new interesting \2/')
    summary+=("$status $pkg $f: ${last:-no progress line}")
  done
done
printf '%s\n' "${summary[@]}"
exit $failed
