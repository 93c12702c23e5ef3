package render_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/render"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite golden files")

// hostile are parameter values that would change a document's structure if
// they were pasted in unescaped.
var hostile = []any{
	`"; rm -rf /`,
	`$(touch /tmp/pwned)`,
	"`id`",
	"a\nb: injected",
	"x\r\ninjected: true",
	"\n- item\n- item2",
	"&anchor value",
	"*alias",
	"<<: *alias",
	"!!python/object:os.system",
	"'single' \"double\"",
	`\"\\`,
	"key: value # comment",
	"#not a comment",
	"--- \n...\n",
	"{a: b}",
	"[1, 2]",
	"| literal\n  block",
	"? complex",
	"%TAG ! tag:x",
	"null",
	"true",
	"1e3",
	"",
	"\x00\x01\x1b[31m\x7f",
	"\u0085\u2028\u2029\ufeff",
	"😀 ünïcödé",
	"</script><script>alert(1)</script>",
	[]any{"a\nb: c", `"]`},
	map[string]any{"k\n: v": "x\n- y", "z": []any{1.5, "*a"}},
	-1e-07,
	true,
	nil,
}

func TestHostileValuesKeepTheStructure(t *testing.T) {
	tmpls := map[render.Format]string{
		render.YAML: "name: fixed\nvalue: {{ .custom.v }}\nnested:\n  list: [1, {{ param \"custom.v\" }}]\n  flow: {x: {{ .custom.v }}}\n# note {{ .custom.v }}\nafter: sentinel\n",
		render.JSON: `{"name": "fixed", "value": {{ .custom.v }}, "nested": {"list": [1, {{ param "custom.v" }}], "flow": {"x": {{ .custom.v }}}}, "after": "sentinel"}`,
	}
	for f, text := range tmpls {
		tm, err := render.Parse("t."+string(f), text, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range hostile {
			name := string(f) + "/" + strings.ReplaceAll(strings.ReplaceAll(jsonString(v), "/", "_"), "\n", "_")
			t.Run(name, func(t *testing.T) {
				out, err := tm.Execute(map[string]any{"custom.v": v})
				if err != nil {
					t.Fatalf("Execute: %v", err)
				}
				var doc map[string]any
				if f == render.YAML {
					err = yaml.Unmarshal(out, &doc)
				} else {
					err = json.Unmarshal(out, &doc)
				}
				if err != nil {
					t.Fatalf("parse back: %v\n%s", err, out)
				}
				want := map[string]any{
					"name": "fixed", "value": norm(v), "after": "sentinel",
					"nested": map[string]any{"list": []any{1.0, norm(v)}, "flow": map[string]any{"x": norm(v)}},
				}
				if got := norm(doc); !reflect.DeepEqual(got, want) {
					t.Errorf("rendered document changed:\ngot  %#v\nwant %#v\n%s", got, want, out)
				}
			})
		}
	}
}

func TestHostileValuesInURL(t *testing.T) {
	tm, err := render.Parse("url", "http://127.0.0.1/search?q={{ .query }}&k={{ .k }}", render.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range hostile {
		s, ok := v.(string)
		if !ok {
			continue
		}
		out, err := tm.Execute(map[string]any{"query": s + "&k=1#x", "k": 10})
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(string(out))
		if err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		q := u.Query()
		if q.Get("q") != s+"&k=1#x" || len(q["k"]) != 1 || q.Get("k") != "10" || len(q) != 2 || u.Fragment != "" {
			t.Errorf("query %q: rendered %s parses to %v", s, out, q)
		}
	}
}

// norm turns numbers into float64 and YAML's map[string]any shapes into
// JSON's, so documents decoded from both compare equal.
func norm(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = norm(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e)
		}
		return out
	}
	return v
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 24 {
		b = b[:24]
	}
	return string(b)
}

func TestTemplateFunctions(t *testing.T) {
	params := map[string]any{"fusion.method": "rrf", "fusion.k": 60.0, "fusion.weights.bm25": 0.6, "retrievers": []any{"bm25", "dense"}}
	tests := []struct {
		name, text, want, wantErr string
	}{
		{name: "field", text: "{{ .fusion.k }}", want: "60"},
		{name: "param", text: `{{ param "fusion.weights.bm25" }}`, want: "0.6"},
		{name: "default used", text: `{{ param "depth" 50 }}`, want: "50"},
		{name: "default ignored", text: `{{ param "fusion.k" 1 }}`, want: "60"},
		{name: "default escaped", text: `{{ param "custom.x" "a\nb" }}`, want: `"a\u000ab"`},
		{name: "subtree", text: `{{ .fusion.weights }}`, want: `{"bm25":0.6}`},
		{name: "list", text: `{{ .retrievers }}`, want: `["bm25","dense"]`},
		{name: "has", text: `{{ if has "fusion.k" }}yes{{ end }}{{ if has "depth" }}no{{ end }}`, want: "yes"},
		{name: "is", text: `{{ if is .fusion.method "rrf" }}rrf{{ else }}other{{ end }}`, want: "rrf"},
		{name: "is number", text: `{{ if is .fusion.k 60 }}sixty{{ end }}`, want: "sixty"},
		{name: "printf cannot unquote", text: `{{ printf "%d %s %v" .fusion.method .fusion.method .fusion.method }}`, want: `"rrf" "rrf" "rrf"`},
		{name: "abs", text: `{{ abs "a b/c.jsonl" }}`, want: jsonQuote(mustAbs("a b/c.jsonl"))},
		{name: "missing field", text: "{{ .depth }}", wantErr: `map has no entry for key "depth"`},
		{name: "missing param", text: `{{ param "fusion.normalization" }}`, wantErr: `parameter "fusion.normalization" is not set`},
		{name: "unparsable result", text: `value: {{ .fusion.method }}: {{ .fusion.k }}`, wantErr: "does not parse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := render.YAML
			if strings.HasPrefix(tc.text, "{{ .") && !strings.Contains(tc.text, ":") && tc.wantErr == "" {
				f = render.JSON // a bare value is a JSON document too
			}
			tm, err := render.Parse(tc.name, tc.text, f)
			if err != nil {
				t.Fatal(err)
			}
			out, err := tm.Execute(params)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got %s, want %s", out, tc.want)
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		want render.Format
	}{
		{"engine.yaml", render.YAML}, {"a/b.yml.tmpl", render.YAML}, {"svc.json.tpl", render.JSON}, {"x.JSON", render.JSON}, {"x.toml", ""},
	} {
		got, err := render.FormatOf(tc.path)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("FormatOf(%q) = %q, %v", tc.path, got, err)
		}
	}
}

// TestGolden renders testdata/engine.yaml.tmpl with fixed parameters; run
// with -update to rewrite testdata/TestGolden.golden.yaml.
func TestGolden(t *testing.T) {
	text, err := os.ReadFile("testdata/engine.yaml.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	tm, err := render.Parse("engine.yaml.tmpl", string(text), render.YAML)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tm.Execute(map[string]any{"fusion.method": "linear", "fusion.normalization": "min_max",
		"fusion.weights.bm25": 0.6, "fusion.weights.dense": 0.4, "chunk.size": 200, "custom.note": "tuned: \"yes\"\n"})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", t.Name()+".golden.yaml")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("rendered config differs from %s:\n%s", golden, out)
	}
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return a
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
