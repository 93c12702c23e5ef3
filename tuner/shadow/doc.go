// Package shadow compares two search configurations on logged traffic:
// for every query both top-k lists (a control's and a treatment's, each
// taken from the log, from an engine config or a recorded trial, or
// searched on a backend of any kind through its own Search: the settings'
// backend as configured, a trial's parameters applied to it, another
// settings file's backend) are
// diffed — identical, minor (same documents, order changed) or major
// (documents changed) — with Kendall's tau, Jaccard@k and whether the top
// result changed; where judgments exist, the per-query metric deltas are
// tested sequentially (stats.SPRT) and with a fixed-sample paired
// bootstrap beside it, and McNemar's test when the metric is of success
// type.
//
// Imports of ours: backend, backend/engine, backend/kinds, internal/inputerr,
// internal/querylog, internal/table, internal/trec, internal/userfile,
// metrics, metrics/stats, runs, tuner/judging/harvest, tuner/judging/labels,
// tuner/pass.
package shadow
