package experiments

import _ "embed"

// Shortlist is the shipped compact experiment file (shortlist.json), used
// when `tune` is given no --experiments.
//
//go:embed shortlist.json
var Shortlist []byte

// Round1 is the shipped broader experiment file (round1.json).
//
//go:embed round1.json
var Round1 []byte
