// Package paramtext writes a trial's parameters as people read them: the
// short names of generated trial names ("fusion.k" is "k", a retriever's
// weight "w.bm25"), values exactly (60, not 60.000000; lists joined by
// "+") and values rounded for reading (a sampled weight
// 0.9738285182219153 as 0.974).
//
// Imports of ours: none.
package paramtext
