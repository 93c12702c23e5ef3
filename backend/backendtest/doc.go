// Package backendtest is the contract suite every backend.Searcher passes:
// health, the shape of a search response, explain lists that reproduce the
// fused ranking through backend/fusion, and determinism. Run it from a
// test of each implementation:
//
//	func TestContract(t *testing.T) {
//		backendtest.Run(t, func(t *testing.T) backend.Searcher { return newMySearcher(t) })
//	}
//
// Imports of ours: backend, backend/fusion.
package backendtest
