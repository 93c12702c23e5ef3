package promote_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/tuner/promote"
)

// TestSameConfig: configs that say the same are the same whatever their
// layout (a trial's compact JSON and an indented production file); a
// changed value is not.
func TestSameConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"bytes", "fusion: {k: 60}\n", "fusion: {k: 60}\n", true},
		{"compact and indented JSON", `{"class":"Prod","alpha":0,"fusionType":"rankedFusion","maxResults":100}`,
			"{\n  \"maxResults\": 100,\n  \"fusionType\": \"rankedFusion\",\n  \"alpha\": 0,\n  \"class\": \"Prod\"\n}\n", true},
		{"JSON and YAML", `{"fusion": {"k": 60, "method": "rrf"}}`, "fusion:\n  method: rrf\n  k: 60\n", true},
		{"60 and 60.0", "k: 60", "k: 60.0", true},
		{"a value differs", `{"alpha":0.5}`, `{"alpha": 0.25}`, false},
		{"a key more", `{"alpha":0.5}`, `{"alpha":0.5,"k":1}`, false},
		{"list order matters", "w: [1, 2]", "w: [2, 1]", false},
		{"unparsable, equal bytes", "{{ not yaml", "{{ not yaml\n", true},
		{"unparsable, other bytes", "{{ not yaml", "{{ not yml", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := promote.SameConfig([]byte(tc.a), []byte(tc.b)); got != tc.same {
				t.Errorf("SameConfig(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
			}
		})
	}
}
