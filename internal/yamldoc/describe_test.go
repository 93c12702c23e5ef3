package yamldoc_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/yamldoc"
	"gopkg.in/yaml.v3"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"mapping", "v: {a: 1}", "a mapping"},
		{"list", "v: [1, 2]", "a list"},
		{"null", "v: ~", "null"},
		{"empty is null", "v:", "null"},
		{"string", "v: many", `"many"`},
		{"number", "v: 4.7", `"4.7"`},
		{"quoted control character", "v: \"a\\tb\"", `"a\tb"`},
		{"alias", "a: &x 1\nv: *x", "an alias"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.in), &doc); err != nil {
				t.Fatal(err)
			}
			m := doc.Content[0]
			v := m.Content[len(m.Content)-1]
			if got := yamldoc.Describe(v); got != tt.want {
				t.Errorf("Describe(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	if got := yamldoc.Describe(&yaml.Node{Kind: yaml.DocumentNode}); got != "an unsupported value" {
		t.Errorf("Describe(document) = %s", got)
	}
}
