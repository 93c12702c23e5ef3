// Package dataset is the golden set a sweep evaluates, resolved against its
// corpus: Open reads a native, TREC or BEIR golden set (passage judgments
// become document ids), OpenSweep splits it into dev and held-out queries,
// MergeLabels folds in a label store's judgments, JudgeDocs and PoolPairs
// give judges the documents and pairs to label, CheckGolden is `tune
// check`'s reading of a golden set, Export writes it as TREC or BEIR (with
// a recorded trial's run), and InitProject writes a starter project.
//
// It imports experiments (the file formats), the engine's corpus reader,
// runs, the label store and tuner/scoring; nothing of tuner.
package dataset
