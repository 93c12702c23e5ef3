// Package shadow compares two search configurations on logged traffic:
// for every query both top-k lists (a control's and a treatment's, each
// taken from the log, from an engine config or a recorded trial) are
// diffed — identical, minor (same documents, order changed) or major
// (documents changed) — with Kendall's tau, Jaccard@k and whether the top
// result changed; where judgments exist, the per-query metric deltas are
// tested sequentially (stats.SPRT) and with a fixed-sample paired
// bootstrap beside it.
//
// Imports of ours: backend, backend/engine, internal/inputerr,
// internal/querylog, internal/table, internal/trec, internal/userfile,
// metrics, metrics/stats, runs, tuner/judging/harvest, tuner/judging/labels.
package shadow
