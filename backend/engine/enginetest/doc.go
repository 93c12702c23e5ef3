// Package enginetest serves the embedded engine in process for tests: a
// real engine behind a real HTTP server on 127.0.0.1, searched with the
// real client, without a tune binary or a process to start. Main lets a
// test binary serve the engine as `tune serve` does, for the embedded
// backend kind that starts it as a process.
//
// Imports of ours: backend, backend/client, backend/engine, backend/fusion.
package enginetest
