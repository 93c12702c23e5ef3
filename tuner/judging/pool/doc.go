// Package pool builds judging pools: the unjudged (query, document) pairs in
// the top of a run's rankings, deduplicated and ordered so that the pairs
// many rankings place high come first, as TREC pools its runs. It is pure:
// rankings and the set of judged pairs in, pairs and statistics out.
//
// Priority of a pair: the sum, over the rankings (sources) that hold it in
// their top Depth, of 1/rank (rank 1-based). Pairs are ordered by priority
// descending, then by the number of sources descending, then by best rank
// ascending, then by query id and document id (byte order): the same
// inputs always give the same pool.
//
// Imports of ours: none.
package pool
