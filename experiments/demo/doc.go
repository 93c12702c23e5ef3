// Package demo ships fusiontune's own demo dataset inside the binary: the
// help-center corpus of a fictional heating company and its judged golden
// set (see README.md beside this file).
//
// Imports of ours: none.
package demo
