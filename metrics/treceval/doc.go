// Package treceval computes trec_eval 10.0 measures from parsed qrels and a
// run, and formats them exactly as trec_eval prints them.
//
// Each query's results are ordered as trec_eval orders them: score
// descending, then document id descending (byte-wise string comparison); the
// rank column of the run is ignored. A document is relevant when its grade
// is at least Options.RelevanceLevel (trec_eval -l, default 1); documents
// missing from the qrels count as not relevant. Queries of the run missing
// from the qrels are skipped; with Options.Complete (trec_eval -c) every
// qrels query is evaluated, an absent one as an empty ranking.
//
// The measures implemented, in trec_eval's order, are listed by Names. A
// measure is requested as trec_eval's -m takes it: a name, optionally
// followed by a dot and parameters ("P.5,10", "ndcg_cut.10",
// "iprec_at_recall..25,.5"), or one of the sets "official" and "all_trec"
// (the implemented part of them).
//
// Imports of ours: internal/plainnum, internal/trec, internal/userfile.
package treceval
