// Package settings is tune's settings model: the blocks of tune.yaml
// (dataset, backend, score, eval, stats, promotion, gates), their defaults,
// the merge of defaults < settings file < FUSIONTUNE_* environment <
// flags (viper), decoding with positions so every problem names its
// file:line:col, environment variable or flag, relative-path resolution
// against the settings file's directory, and one Validate per block that
// lists every problem at once. Only cmd/tune uses it: the library
// packages take the plain values it yields (pass.EvalOptions,
// analysis.StatsOptions, promote.Policy, ...).
//
// Imports of ours: backend, backend/command, backend/corpus, backend/embed,
// backend/embedded, backend/engine, backend/external, backend/httpbackend,
// backend/kinds, backend/lancedb, backend/postgres, backend/render,
// backend/weaviate, cmd/tune/internal/ui, experiments, internal/inputerr,
// internal/suggest, internal/userfile, internal/yamldoc, metrics,
// metrics/stats, runs, tuner, tuner/analysis, tuner/dataset, tuner/judging,
// tuner/judging/judge, tuner/judging/judge/llm, tuner/judging/labels,
// tuner/pass, tuner/promote, tuner/scoring, tuner/verdict.
package settings
