// Package suggest offers "did you mean" corrections: the candidate closest
// to a mistyped word by edit distance.
//
// Imports of ours: none.
package suggest
