// Package robust checks that a run's winner does not depend on who
// judged. Analyze scores every trial again from its recorded top hits
// under the reference judgments (the golden set merged with every
// judge's labels, as sweeps merge them), then under each judge's view
// (the golden set with that judge's labels alone), and under resamples
// of the labels by their confidence (a label keeps its grade with its
// judge's confidence, else takes another grade of the scale at random;
// an unknown confidence counts as UnknownConfidence). For each view it
// reports the leader, whether it is the reference's winner, and Kendall's
// tau (gonum's stat.Kendall, tau-a) between the primary scores of the
// reference's top trials under the reference and under the view. The
// winner is robust when it leads under every judge and in at least
// MinSurvival of the resamples.
//
// Imports of ours: tuner/judging/decision, tuner/judging/labels,
// tuner/scoring.
package robust
