// Package report renders a run directory as one self-contained HTML page,
// report.html: the leaderboard, per-category scores with their intervals, the
// primary score against each tuned parameter, replay-versus-live parity,
// judged-coverage warnings and the worst queries of the best trial.
//
// Charts are inline SVG: the parameter charts those of runs/chart, which
// the web UI shows too, the others drawn with gonum.org/v1/plot; the page
// has no JavaScript and no external resources. The same run gives the same bytes:
// the only times on the page are the ones the run's manifest recorded.
//
// Imports of ours: internal/paramtext, runs, runs/chart.
package report
