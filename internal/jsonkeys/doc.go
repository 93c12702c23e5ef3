// Package jsonkeys finds a key given twice in one JSON object, which
// encoding/json reads silently (the last wins), so that line-based readers
// of user files (pools, labels) refuse it as the YAML readers do.
//
// Imports of ours: none.
package jsonkeys
