package render

import (
	"math"
	"reflect"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestScalarMemoIsEncode: the memo's node for a scalar, on the first render
// and on every later one, is yaml.v3's Node.Encode of it, so configs render
// byte for byte as without the memo; 0.0 and -0.0 and the integer and
// float kinds stay apart.
func TestScalarMemoIsEncode(t *testing.T) {
	values := []any{
		nil, true, false, 0, -7, int64(1) << 62, 0.0, math.Copysign(0, -1), 60.0, 0.5, 1e21, 1e-7,
		math.NaN(), math.Inf(1), math.Inf(-1), float64(math.MaxInt64),
		"", "rrf", "true", "null", "~", "0x1F", "1e3", "0755", "1:20", "yes", "on", "n",
		"key: value", "- item", "# c", " padded ", "tab\there", "unicode ü ✓", "a'b\"c",
	}
	m := &scalarMemo{nodes: map[scalarKey]yaml.Node{}}
	for round := range 2 {
		for _, v := range values {
			var want yaml.Node
			if err := want.Encode(v); err != nil {
				t.Fatal(err)
			}
			got, err := m.node(v)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("round %d: %#v: memo %+v, Encode %+v", round, v, *got, want)
			}
			gb, _ := yaml.Marshal(got)
			wb, _ := yaml.Marshal(&want)
			if string(gb) != string(wb) {
				t.Errorf("round %d: %#v renders %q, want %q", round, v, gb, wb)
			}
		}
	}
	// One entry per distinct key (NaN found again, not added twice).
	if got, want := len(m.nodes), len(values); got != want {
		t.Errorf("memo holds %d nodes for %d distinct values", got, want)
	}
	got, _ := m.node(math.Copysign(0, -1))
	if got.Value != "-0" {
		t.Errorf("-0.0 renders %q, want -0", got.Value)
	}
}
