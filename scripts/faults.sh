#!/usr/bin/env bash
# faults.sh — the fault matrix (make faults): every fault scenario tune must
# survive, one line each, PASS or FAIL, from the Go test that plays it
# through the real binary (or the real server). Exit 1 when any fails or
# skips.
#
# Each row: package, test names (a regular-expression alternation),
# scenario. The tests of one package run in one `go test -count=1 -v` so
# that it is built once.
set -euo pipefail
cd "$(dirname "$0")/.."

scenarios=(
	"./cmd/tune|TestFaultPromotionKilled|SIGKILL during tune apply's verification: tune rollback restores the config (journal written ahead)"
	"./cmd/tune|TestHTTPSweepsShareNoService|two sweeps (and a worker) on one service's config: the second refuses, naming the holder"
	"./cmd/tune|TestSweepsShareNoServiceThroughSymlink|a second sweep on the service's config through a symlink: refused (the lock is the file's); the link stays a link"
	"./cmd/tune|TestTempFilesBesideDestination|index cache on another filesystem (unusable TMPDIR): temporaries built beside their destination"
	"./cmd/tune|TestEchoedCredentialRedacted|a service echoing the bare token of 'Bearer sk-…': redacted in every file and stream"
	"./cmd/tune|TestEchoedEncodedCredentialRedacted|a service echoing the token URL-encoded, JSON-escaped (\\/) and case-changed: no form of it in any file or stream"
	"./cmd/tune|TestFaultStatsInterrupted|statistics interrupted by SIGINT: exit 1, run marked interrupted, --resume redoes them"
	"./cmd/tune|TestFaultStatsKilled|tune SIGKILLed during the statistics: run left analysing (not done) without a leaderboard; --resume finishes it without running a trial again"
	"./backend/engine|TestServerQueryLimits|TestServerBodyLimit|TestServerConcurrencyLimit|tune serve: oversized queries, bodies and overflowing weights get 400, concurrency bounded"
	"./cmd/tune|TestFaultServeKilledMidBatch|tune serve child SIGKILLed mid-batch: the trial fails at once with the exit status; --retry-failed reruns it"
	"./cmd/tune|TestFaultTunerKilledThenResume|tune SIGKILLed mid-sweep: --resume runs every trial exactly once"
	"./cmd/tune|TestFaultKilledAfterReport|tune SIGKILLed as a trial is reported finished (its record written while the next trial starts): every reported trial is in the run, whole"
	"./cmd/tune|TestFaultRecordWriteError|trial records cannot be written: exit 1 naming the path, finished trials kept, --resume finishes"
	"./backend/render|TestHostileValuesKeepTheStructure|TestHostileValuesInURL|TestYAMLOverlayHostileValues|TestYAMLOverlayHostileKeys|hostile parameter values never change a template's or config's structure"
	"./backend/engine|TestServeDrain|tune serve drains in-flight requests on shutdown"
	"./cmd/tune|TestFaultMatrixProcessKind|a service that never gets ready, hangs, answers 500, answers garbage or dies: each trial fails with its reason"
	"./cmd/tune|TestFaultPromotionRestartFails|a promotion whose restart fails: the previous config is restored"
	"./cmd/tune|TestFaultCheckInterrupted|tune check reading a 300,000-query golden set: SIGINT or SIGTERM stops it (exit 1, interrupted; the time it took is logged)"
	"./cmd/tune|TestUIServesOnlyRunsDirProcess|TestApplyOnlyFromRunsDir|runs outside runs_dir: tune ui answers 404 (encoded absolute path, a directory where it started); tune apply refuses them without --allow-outside-runs"
	"./cmd/tune|TestFaultDevZero|/dev/zero as golden set, judgments or settings: refused at once (exit 2) naming the device, no run left"
)

declare -A names logs
for row in "${scenarios[@]}"; do
	pkg=${row%%|*}
	rest=${row#*|}
	tests=${rest%|*}
	names[$pkg]+="${names[$pkg]:+|}$tests"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pkg in "${!names[@]}"; do
	log="$tmp/$(echo "$pkg" | tr '/.' '__').log"
	logs[$pkg]=$log
	echo "faults: go test $pkg (${names[$pkg]//|/, })" >&2
	go test -count=1 -v -run "^(${names[$pkg]})\$" "$pkg" >"$log" 2>&1 || true
done

failed=0
for row in "${scenarios[@]}"; do
	pkg=${row%%|*}
	rest=${row#*|}
	tests=${rest%|*}
	scenario=${rest##*|}
	status=PASS
	IFS='|' read -ra list <<<"$tests"
	for t in "${list[@]}"; do
		if ! grep -q -- "^--- PASS: $t (" "${logs[$pkg]}"; then
			status=FAIL
			# What the test said: its output from its start to its end
			# (the last 60 lines of it), so a failure shows its cause.
			awk -v t="$t" '$0 == "=== RUN   " t { on = 1 } on { print } on && index($0, "--- FAIL: " t " ") == 1 { on = 0 }' "${logs[$pkg]}" | tail -60 >>"$tmp/failed.log"
		fi
	done
	[ "$status" = PASS ] || failed=$((failed + 1))
	printf "%s  %s: %s\n" "$status" "$scenario" "${tests//|/, }"
done
if [ "$failed" -gt 0 ]; then
	echo "faults: $failed of ${#scenarios[@]} scenarios failed; logs:" >&2
	cat "$tmp/failed.log" >&2 2>/dev/null || true
	for pkg in "${!logs[@]}"; do
		grep -E -- "^(FAIL|panic)" "${logs[$pkg]}" >&2 || true
	done
	exit 1
fi
echo "faults: all ${#scenarios[@]} scenarios passed" >&2
