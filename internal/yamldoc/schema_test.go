package yamldoc_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/internal/yamldoc"
	"gopkg.in/yaml.v3"
)

type inner struct {
	Size  int     `yaml:"size"`
	Ratio float64 `yaml:"ratio"`
}

type outer struct {
	Name    string         `yaml:"name"`
	Depth   int            `yaml:"depth"`
	Floor   *float64       `yaml:"floor"`
	On      bool           `yaml:"on"`
	Wait    time.Duration  `yaml:"wait"`
	Inner   inner          `yaml:"inner"`
	List    []int          `yaml:"list"`
	Weights map[string]int `yaml:"weights"`
	Free    map[string]any `yaml:"free"`
}

func TestSchemaCheck(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // "line:col field: msg"
	}{
		{"valid", "name: a\ndepth: 3\nfloor: -0.5\non: true\nwait: 2s\ninner: {size: 1, ratio: 1e3}\nlist: [1, 2]\nweights: {a: 1}\nfree: {x: [1, .nan]}\n", nil},
		{"null leaves unset", "depth:\nfloor: ~\n", nil},
		{"fraction for an integer", "depth: 2.5\n", []string{`1:8 depth: want an integer (got "2.5")`}},
		{"exponent for an integer", "depth: 1e3\n", []string{`1:8 depth: want an integer (got "1e3")`}},
		{"overflowing integer", "inner: {size: 1e999}\n", []string{`1:15 inner.size: want an integer (got "1e999")`}},
		{"integer beyond int64", "depth: 99999999999999999999\n", []string{`1:8 depth: want an integer (got "99999999999999999999")`}},
		{"NaN", "floor: .nan\n", []string{`1:8 floor: want a finite number (got ".nan")`}},
		{"infinity", "inner: {ratio: -.inf}\n", []string{`1:16 inner.ratio: want a finite number (got "-.inf")`}},
		{"overflowing float", "floor: 1e999\n", []string{`1:8 floor: want a finite number (got "1e999")`}},
		{"number for a boolean", "on: 1\n", []string{`1:5 on: want true or false (got "1")`}},
		{"bad duration", "wait: soon\n", []string{`1:7 wait: want a duration such as "30s" or "2m" (got "soon")`}},
		{"list item", "list: [1, 2.5]\n", []string{`1:11 list[1]: want an integer (got "2.5")`}},
		{"map value", "weights: {a: x}\n", []string{`1:14 weights.a: want an integer (got "x")`}},
		{"mapping for a scalar", "depth: {a: 1}\n", []string{`1:8 depth: want an integer (got a mapping)`}},
		{"unknown key", "dpeth: 3\n", []string{`1:1 dpeth: unknown key "dpeth" (did you mean "depth"?)`}},
		{"secret-looking key", "inner: {api_key: sk-123}\n", []string{`1:9 inner.api_key: secrets are read only from environment variables: name the variable with api_key_env (e.g. api_key_env: OPENAI_API_KEY)`}},
		{"every problem at once", "depth: .5\nfloor: .inf\n", []string{`1:8 depth: want an integer (got ".5")`, `2:8 floor: want a finite number (got ".inf")`}},
		{"alias left to the decoder", "a: &x 2.5\n", []string{`1:1 a: unknown key "a" (expected one of: depth, floor, free, inner, list, name, on, wait, weights)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.in), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range (yamldoc.Schema{Tag: "yaml"}).Check(doc.Content[0], reflect.TypeFor[outer](), "") {
				got = append(got, fmt.Sprintf("%d:%d %s: %s", p.Node.Line, p.Node.Column, p.Field, p.Msg))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check(%q)\ngot  %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSchemaSubAndSeen: Sub checks a field against another type and tag,
// Seen is told of every node with its key.
func TestSchemaSubAndSeen(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("free: {size: 2.5, ratio: 1}\nname: x\n"), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	s := yamldoc.Schema{Tag: "yaml",
		Sub: func(field, tag string) (reflect.Type, string, bool) {
			return reflect.TypeFor[inner](), "yaml", field == "free"
		},
		Seen: func(field string, v, k *yaml.Node) { seen[field] = k != nil },
	}
	probs := s.Check(doc.Content[0], reflect.TypeFor[outer](), "")
	if len(probs) != 1 || probs[0].Field != "free.size" {
		t.Errorf("problems %+v, want free.size's alone", probs)
	}
	for _, f := range []string{"free", "free.size", "free.ratio", "name"} {
		if !seen[f] {
			t.Errorf("Seen not told of %s with its key (%v)", f, seen)
		}
	}
}
