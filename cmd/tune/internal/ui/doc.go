// Package ui is `tune ui`: a local web app over a runs directory, the
// configured dataset, backend and label store. Its pages are the runs
// history, a run's leaderboard (sortable, filterable) with its decision
// line, gates and promotions, the comparison of two trials, the query
// microscope (a query run live with explain, each retriever's list, the
// fused list re-fused under fusion controls with the code replay records
// trials with, replay.ReplayLists; documents shown by title and snippet;
// the golden set's queries searchable, or a query typed), the judge pages
// (a trial's top 10, or a judging pool's pairs with the pool's coverage)
// writing a person's labels to the label store, with undo of the
// session's labels (labels.Store.Withdraw), and the dataset's queries with
// their coverage.
//
// Pages are server-rendered with html/template; the little JavaScript
// (keyboard shortcuts, submitting the fusion controls on change) and the
// stylesheet are embedded, so the app needs no build step and no network.
// Every POST carries the server's CSRF token and every request body is
// limited to MaxBodyBytes.
//
// Imports of ours: backend, backend/fusion, experiments,
// internal/httpserve, internal/inputerr, internal/paramtext, runs,
// runs/chart, runs/report, tuner, tuner/analysis, tuner/dataset,
// tuner/judging/judge, tuner/judging/labels, tuner/pass, tuner/replay,
// tuner/scoring.
package ui
