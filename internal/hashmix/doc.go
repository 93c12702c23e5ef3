// Package hashmix holds SplitMix64's finaliser (Steele, Lea and Flood
// 2014): it spreads the bits of a 64-bit hash, so that ids differing only
// in their last characters (FNV-1a's weak spot) land far apart. The
// seeded splits and the query log's sampling share it.
//
// Imports of ours: none.
package hashmix
