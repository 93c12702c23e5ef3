// Package refdoc makes the manual's reference pages (docs/reference) from
// the code's own tables: the parameter table (backend.ParamTable), the
// settings struct with its defaults and the ranges its validation checks,
// the metrics' names and doc comments, the exit codes, and every
// command's help as the tests pin it. `make docs` writes them (gendocs);
// the package's tests fail when a committed page differs from what the
// code makes, and check every documented range at both ends.
//
// Imports of ours: backend, backend/command, backend/postgres,
// backend/weaviate, cmd/tune/internal/cli, cmd/tune/internal/settings,
// experiments, metrics, metrics/treceval, tuner/judging/judge/llm.
package refdoc
