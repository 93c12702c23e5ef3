// Package fusion merges the ranked candidate lists of several retrievers into
// one ranking: reciprocal rank fusion, weighted combination of normalized
// scores, CombSUM and CombMNZ. The functions are pure and deterministic (ties
// break by id) and are shared by the embedded engine and by the tuner's
// offline replay, so both rank identically.
//
// Fuse is the one-call form. For the replay hot path, Prepare a query's lists
// once and fuse them under many Params with a Fuser (FuseInto, FuseTopInto,
// or RankInto, which returns interned units instead of strings); all of them
// rank bit-for-bit alike.
package fusion
