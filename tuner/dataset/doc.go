// Package dataset is the golden set a sweep evaluates, resolved against its
// corpus: Open reads a native, TREC or BEIR golden set (passage judgments
// become document ids), OpenSweep splits it into dev and held-out queries,
// MergeLabels folds in a label store's judgments, JudgeDocs and PoolPairs
// give judges the documents and pairs to label, CheckGolden is `tune
// check`'s reading of a golden set, Export writes it as TREC or BEIR (with
// a recorded trial's run), and InitProject writes a starter project.
//
// Imports of ours: backend/corpus, experiments, experiments/demo,
// internal/atomicfile, internal/inputerr, internal/trec, internal/userfile,
// runs, tuner/judging/judge, tuner/judging/labels, tuner/replay,
// tuner/scoring.
package dataset
