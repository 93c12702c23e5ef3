// Package chart draws a run's primary score against each parameter the
// run varied, and its optimization history (primary by trial number, the
// best so far as a step line, the baseline, pruned trials apart), as SVG:
// the one drawing of those charts that the static report (runs/report)
// and the web UI both embed, so that they cannot disagree.
//
// A numeric parameter is always on a numeric axis, on a log scale when
// its values are geometric (5, 10, 20, 40: evenly spread in log space);
// a trial that leaves the parameter unset stands at its effective value
// (the backend's default, runs.Entry.Defaults), or, in a run recorded
// without one, at a slot marked "default" beside the axis. Tick labels
// are the values themselves when there are few, round numbers otherwise,
// never overlapping. Strings are categories, side by side.
//
// For a pair of numeric parameters a heatmap colours each cell (a value,
// or a range of sampled values) by the best primary score in it. For a
// study, parameter importance is η², the correlation ratio
// (ImportanceMethod). Every chart comes with its data as a table folded
// in a <details> element, for screen readers and exact values.
//
// Imports of ours: internal/paramtext, runs.
package chart
