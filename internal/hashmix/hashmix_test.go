package hashmix

import "testing"

// TestFinalize: SplitMix64's published outputs for the seed 1234567 are
// the finaliser of the seed plus multiples of its golden-ratio increment.
func TestFinalize(t *testing.T) {
	const gamma = 0x9e3779b97f4a7c15
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423}
	x := uint64(1234567)
	for i, w := range want {
		x += gamma
		if got := Finalize(x); got != w {
			t.Errorf("output %d = %d, want %d", i, got, w)
		}
	}
}
