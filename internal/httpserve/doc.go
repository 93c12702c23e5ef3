// Package httpserve runs an HTTP handler on a listener until a context
// ends: the bound address announced and written to a ready file, a
// graceful shutdown at the end. tune ui and tune embed serve through it.
//
// Imports of ours: internal/atomicfile.
package httpserve
