// Package process is a backend.Backend that owns its search service as a
// child process: Apply renders the service's config file, Restart stops the
// process (SIGTERM, then SIGKILL after a timeout) and starts it again, Ready
// polls its health endpoint, and Search talks to it over HTTP. Commands are
// argv lists; no parameter value ever reaches a shell.
//
// The embedded engine (`tune serve`) is driven through this package too: see
// Embedded.
//
// Imports of ours: backend, backend/render, internal/atomicfile.
package process
