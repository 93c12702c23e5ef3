// Package hashmix holds SplitMix64's finaliser (Steele, Lea and Flood
// 2014): it spreads the bits of a 64-bit hash, so that ids differing only
// in their last characters (FNV-1a's weak spot) land far apart. The
// seeded splits and the query log's sampling share it.
package hashmix

// Finalize returns SplitMix64's finaliser of x.
func Finalize(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
