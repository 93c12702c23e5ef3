// Package decision spends judgments where they can change the promotion
// decision. The decision is the leading trial by the primary score and
// its side of the baseline: ship the leader when it is not the baseline,
// keep the baseline when it leads. Analyze bounds, for the leader against
// the baseline and against the runner-up, the mean difference of primary
// scores under the worst and the best labelling of the pairs still
// unjudged, and orders those pairs by how far their label alone can move
// a comparison that is still open. Every other trial that a quick
// labelling by rank (each unjudged document graded the top grade where it
// ranks higher than in the leader's list, 0 elsewhere) would put ahead is
// weighed the same way, as a challenger. The decision is settled when
// every comparison keeps the leader ahead even under the labelling worst
// for it.
//
// The worst labelling is built document by document: an unjudged
// document is graded the scale's top grade when that grade alone lowers
// the leader's lead in its query (the other trial ranks it higher) and 0
// otherwise; the best labelling is the reverse. Both are then scored with
// the run's own scorer, so the bounds are differences of real scores. For
// measures linear in the grades (DCG, precision at k) they are the exact
// extremes; for measures normalized by the ideal ranking (NDCG) a close
// approximation. Only the recorded top hits are seen (the runs keep each
// query's top 20); queries without any judgment do not count, as in the
// scorecards.
//
// Imports of ours: runs, tuner/judging/pool, tuner/scoring.
package decision
