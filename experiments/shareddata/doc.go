// Package shareddata locates the evaluation data kept outside the
// repository, in ../shared/data beside the repository root, for tests and
// benchmarks that skip when it is absent.
//
// Imports of ours: none.
package shareddata
