package render_test

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend/render"
	"gopkg.in/yaml.v3"
)

// FuzzValueKeepsStructure renders any string into a YAML and a JSON
// template and parses the result back: the document keeps its keys and
// the value comes back unchanged.
func FuzzValueKeepsStructure(f *testing.F) {
	for _, v := range hostile {
		if s, ok := v.(string); ok {
			f.Add(s)
		}
	}
	y, err := render.Parse("f.yaml", "a: {{ .v }}\nlist: [{{ .v }}, x]\n# {{ .v }}\nz: end\n", render.YAML)
	if err != nil {
		f.Fatal(err)
	}
	j, err := render.Parse("f.json", `{"a": {{ .v }}, "list": [{{ .v }}, "x"], "z": "end"}`, render.JSON)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) {
			return // invalid UTF-8 is replaced by U+FFFD by design
		}
		for _, tm := range []*render.Template{y, j} {
			out, err := tm.Execute(map[string]any{"v": v})
			if err != nil {
				t.Fatalf("%s: %v", tm.Name(), err)
			}
			var doc struct {
				A    string   `json:"a" yaml:"a"`
				List []string `json:"list" yaml:"list"`
				Z    string   `json:"z" yaml:"z"`
			}
			var keys map[string]any
			if tm.Format() == render.YAML {
				err = yaml.Unmarshal(out, &doc)
				if err == nil {
					err = yaml.Unmarshal(out, &keys)
				}
			} else {
				err = json.Unmarshal(out, &doc)
				if err == nil {
					err = json.Unmarshal(out, &keys)
				}
			}
			if err != nil {
				t.Fatalf("%s: parse back: %v\n%s", tm.Name(), err, out)
			}
			if doc.A != v || len(doc.List) != 2 || doc.List[0] != v || doc.List[1] != "x" || doc.Z != "end" || len(keys) != 3 {
				t.Fatalf("%s: value %q changed the document:\n%s", tm.Name(), v, out)
			}
		}
	})
}
