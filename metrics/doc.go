// Package metrics holds pure functions from a ranking and graded judgments to
// numbers: the IR measures, scorecards, the composite primary score and their
// aggregation over queries. It does no I/O and imports nothing else of
// fusiontune.
//
// A ranking is a []string of document ids, best first. Judgments map
// document ids to grades (0 irrelevant, 1 weak, 2 mostly relevant, 3 fully
// relevant by default; any non-negative integer is accepted).
//
// Rules shared by every measure:
//
//   - Duplicate ids in a ranking: the first occurrence wins and later ones
//     are removed before scoring, so a duplicate never earns gain twice and
//     the documents after it move up.
//   - Unjudged documents have grade 0. Judged@k shows how much of the top k
//     was judged at all (a judgment of 0 counts as judged).
//   - Negative grades count as 0 (but as judged).
//   - Queries without relevant documents (no judgment at or above the
//     threshold): Recall, AP, R-Precision, NDCG and Gain_Recall are 0, as in
//     trec_eval; precision-type measures are 0 because nothing retrieved is
//     relevant.
//   - k larger than the ranking: precision-type measures still divide by k
//     (the missing positions count as non-relevant, as trec_eval's P_k
//     does). A measure written without @k uses the whole ranking, and then
//     divides by the ranking's length.
//
// Scoring: Metric.Score computes one measure; a Scorecard computes many in
// one walk of the ranking (ScoreInto avoids the map); a Query prepares a
// query's judgments once so that Scorecard.ScoreQuery can score ranking
// after ranking of it (the tuner's trials) without redoing that work.
// Composite turns a scorecard's values into the primary score and a
// Summarizer averages per-query values and primary scores into a Summary:
// overall, per category and per difficulty, with the routing accuracy.
//
// Binary measures (P, Recall, F1, MRR, AP, R-Precision, Success) call a
// document relevant when its grade is at least Options.Threshold (default
// 1, trec_eval's -l1). Graded measures use the grade itself. The grade
// scale is any 0..Options.MaxGrade; the Strong_ and Exact_ measures
// (Strong_Precision, Strong_Success, MRR_Strong, Recall_Strong and their
// Exact twins) count grades at or above Options.StrongGrade() (default
// ceil(2*max/3): 2 on 0-3) and Options.ExactGrade() (default max), each the
// binary measure at that relevance level, so trec_eval at -l strong gives
// the same numbers. DefaultCompositeFor builds the default primary score
// for a scale.
//
// Imports of ours: internal/plainnum.
package metrics
