// Package lancedbtest finds the lancedb kind's sidecar for tests: the
// source tree's backend/lancedb/sidecar with LanceDB installed (npm ci)
// and node on PATH. Tests skip with a clear message when either is
// missing, and fail instead under CI=true (.ci/run installs both).
//
// Imports of ours: backend/corpus, backend/embed, backend/lancedb.
package lancedbtest
