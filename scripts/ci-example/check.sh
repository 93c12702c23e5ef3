#!/bin/sh
# The CI quality check as plain shell steps, for any CI (GitHub Actions
# runs this same script: see github-actions.yml). Run from the repository
# root. It builds tune, starts the search service under test, evaluates it
# read-only against the golden set and the committed baseline, writes the
# Markdown summary (and posts it where the CI offers a place), and exits 1
# when a quality gate fails (2 for a setup or input error).
#
# Environment (all optional):
#   TUNE      a tune binary (default: built from this checkout into $WORK)
#   WORK      scratch directory (default: a new temporary one)
#   ADDR      the service's address (default 127.0.0.1:8099)
#   CONFIG    settings file (default scripts/ci-example/tune.yaml)
#   BASELINE  reference for --against: a baseline file, a run or
#             latest-on-branch (default scripts/ci-example/golden.baseline.json)
#   SUMMARY   where the Markdown summary goes (default $WORK/summary.md)
#   ARTIFACTS a directory to copy the run's quality.json and baseline.json
#             to, for the CI to keep (the next run's BASELINE); none when unset
set -eu

WORK=${WORK:-$(mktemp -d)}
ADDR=${ADDR:-127.0.0.1:8099}
CONFIG=${CONFIG:-scripts/ci-example/tune.yaml}
BASELINE=${BASELINE:-scripts/ci-example/golden.baseline.json}
SUMMARY=${SUMMARY:-$WORK/summary.md}

# 1. Build tune (or use the one given; `go install
#    github.com/fusiontune/fusiontune/cmd/tune@VERSION` works too).
if [ -z "${TUNE:-}" ]; then
	TUNE=$WORK/tune
	go build -o "$TUNE" ./cmd/tune
fi

# 2. Start the service under test. Here: tune's own engine on the demo
#    corpus, standing in for your search service (start yours instead).
cat >"$WORK/search.yaml" <<YAML
corpus: {path: "$(pwd)/experiments/demo/corpus.jsonl"}
cache_dir: "$WORK/engine-cache"
dense: {model: hash-384}
fusion: {method: rrf, k: 60}
YAML
"$TUNE" serve --config "$WORK/search.yaml" --listen "$ADDR" >"$WORK/service.log" 2>&1 &
service=$!
trap 'kill "$service" 2>/dev/null || true' EXIT INT TERM

# 3. Evaluate it as it runs. The settings' URLs name 127.0.0.1:8099;
#    FUSIONTUNE_* variables point them at $ADDR. tune waits for the health
#    URL (backend.start_timeout) before the first query.
export FUSIONTUNE_BACKEND_HEALTH_URL="http://$ADDR/healthz"
export FUSIONTUNE_BACKEND_SEARCH_URL="http://$ADDR/search"
status=0
"$TUNE" check-quality --config "$CONFIG" --runs-dir "$WORK/runs" \
	--against "$BASELINE" --format md >"$SUMMARY" || status=$?

# 4. Keep the run's quality.json and baseline.json for the CI to upload:
#    the next run passes that baseline.json as BASELINE.
if [ -n "${ARTIFACTS:-}" ]; then
	mkdir -p "$ARTIFACTS"
	for run in "$WORK"/runs/*/; do :; done
	for f in quality.json baseline.json; do
		if [ -f "$run$f" ]; then cp "$run$f" "$ARTIFACTS/"; fi
	done
fi

# 5. Post the summary: the job summary on GitHub Actions, a comment on the
#    pull request when gh and a PR number are there (PR_NUMBER).
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	cat "$SUMMARY" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${PR_NUMBER:-}" ] && command -v gh >/dev/null 2>&1; then
	gh pr comment "$PR_NUMBER" --body-file "$SUMMARY" || echo "could not comment on PR $PR_NUMBER" >&2
fi
cat "$SUMMARY"

# 6. Fail the job when a gate failed (exit 1) or the check could not run.
exit "$status"
