// Package kinds builds a backend kind's Factory from plain options: the
// one place that knows every kind (embedded, process, http), so a new kind
// plugs in here and in the settings model (cmd/tune/internal/settings), not in the
// command.
//
// Imports of ours: backend, backend/command, backend/embedded,
// backend/external, backend/lancedb, backend/postgres, backend/weaviate.
package kinds
