package tuner

// RungSubsets exposes rungSubsets to the external tests.
var RungSubsets = rungSubsets
