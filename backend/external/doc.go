// Package external is the backend kinds that drive a search service the
// user runs: "process" (fusiontune starts the service's command as a child
// on a config file rendered per trial from the user's template) and "http"
// (the service runs elsewhere; each trial rewrites its config file and runs
// its restart command). Both search through a request template.
//
// Imports of ours: backend, backend/httpbackend, backend/process,
// backend/render, internal/userfile.
package external
