// Package parallel runs independent pieces of work on every core.
//
// Imports of ours: none.
package parallel
