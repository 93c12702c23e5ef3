// Package embedded is the embedded backend kind: fusiontune's own engine,
// `tune serve`, run as a child process on an engine config rendered per
// trial from a base config (a config file overlaid by engine keys from the
// settings, overlaid by the trial's parameters).
//
// Imports of ours: backend, backend/client, backend/corpus, backend/embed,
// backend/engine, backend/fusion, backend/process, backend/render,
// internal/secrets, internal/userfile.
package embedded
