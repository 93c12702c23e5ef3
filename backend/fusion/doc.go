// Package fusion merges the ranked candidate lists of several retrievers into
// one ranking: reciprocal rank fusion, weighted combination of normalized
// scores, CombSUM and CombMNZ. The functions are pure and deterministic and
// are shared by the embedded engine and by the tuner's offline replay, so
// both rank identically.
//
// The tie rule: every ranking ranks by score descending, and equal scores
// break by document id descending (byte-wise), then by unit id (chunk id)
// descending. That is the order trec_eval 10.0 gives tied scores of a run
// file (comp_sim_docno in its form_res_rels.c; internal/trec.Compare), so a
// run file of a served ranking's own scores, as tune search writes it,
// evaluates in exactly the order that was served and scored by the sweep.
// Ties are common: in two-list RRF a document ranked r by one retriever
// only ties with one ranked r by the other only. The embedded engine's
// retrievers break ties the same way.
//
// Fuse is the one-call form. For the replay hot path, Prepare a query's lists
// once and fuse them under many Params with a Fuser (FuseInto, FuseTopInto,
// or RankInto, which returns interned units instead of strings); all of them
// rank bit-for-bit alike.
//
// One rule decides what a search returns: Settings (the fusion, the
// per-retriever floors, min_score and passage mode) with Fuser.HitsInto
// cuts each list at its retriever's floor, fuses, keeps the best n units
// down to the first score below min_score, and Routing labels an empty
// answer "no_results" (see Settings for the whole routing rule). The
// engine answers requests and the replay scores trials through it.
//
// Imports of ours: internal/userfile.
package fusion
