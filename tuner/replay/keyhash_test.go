package replay_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/tuner/replay"
)

// TestKeyHash: a key depends on the bytes written, not on how they were
// split into writes, and bytes that differ anywhere, even by one at the
// end, give another key.
func TestKeyHash(t *testing.T) {
	key := func(parts ...string) string {
		h := replay.NewKeyHash()
		for _, p := range parts {
			h.Write([]byte(p))
		}
		return h.Key()
	}
	whole := key("\"q1\" \"search\" \"\" 0.5 \"d1\" \"d2\"\n\"q2\" \"search\" \"\" 1 \"d3\"\n")
	for _, tc := range []struct {
		name  string
		parts []string
		same  bool
	}{
		{"split by line", []string{"\"q1\" \"search\" \"\" 0.5 \"d1\" \"d2\"\n", "\"q2\" \"search\" \"\" 1 \"d3\"\n"}, true},
		{"split anywhere", []string{"\"q1\" \"sea", "rch\" \"\" 0.5 \"d1\" \"d2\"\n\"q2\" \"search\" \"\" 1 \"d3\"", "\n"}, true},
		{"two ids swapped", []string{"\"q1\" \"search\" \"\" 0.5 \"d2\" \"d1\"\n\"q2\" \"search\" \"\" 1 \"d3\"\n"}, false},
		{"one byte more", []string{"\"q1\" \"search\" \"\" 0.5 \"d1\" \"d2\"\n\"q2\" \"search\" \"\" 1 \"d3\"\n\n"}, false},
		{"nothing", nil, false},
	} {
		if got := key(tc.parts...); (got == whole) != tc.same {
			t.Errorf("%s: key %s, whole %s: same %v, want %v", tc.name, got, whole, got == whole, tc.same)
		}
	}
	if len(whole) != 32 {
		t.Errorf("key %q: want 32 hex digits (128 bits)", whole)
	}
}
