package render_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend/render"
)

// hostileStrings are parameter values that would break out of a naively
// templated YAML document or shell command.
var hostileStrings = []string{
	`"; rm -rf /"`,
	`'; rm -rf / #`,
	`$(touch /tmp/pwned)`,
	"`touch /tmp/pwned`",
	"line one\nline two: injected\n- list",
	"value\nfusion:\n  method: evil",
	"&anchor value",
	"*alias",
	"<<: *base",
	"!!python/object:os.system",
	"key: value",
	"- item",
	"# not a comment",
	"| block",
	"> folded",
	"{flow: map}",
	"[flow, seq]",
	"%YAML 1.1",
	"---",
	"...",
	"null",
	"~",
	"true",
	"0x1F",
	"1e3",
	"",
	" leading and trailing spaces ",
	"tab\there",
	"quote \" and backslash \\",
	"unicode ü ✓ \u2028 line separator",
	"\x00nul byte",
	"\nleading newline: x",
	"\n\n",
	"trailing newline\n",
}

// TestYAMLOverlayHostileValues renders every hostileStrings value at a nested
// path and as a key's sibling: the document parses back to exactly the
// same values, nothing else is added, and the base is untouched.
func TestYAMLOverlayHostileValues(t *testing.T) {
	base := map[string]any{"fusion": map[string]any{"method": "rrf", "k": 60}, "listen": "127.0.0.1:0"}
	overlay := render.YAMLOverlay(base)
	for _, v := range hostileStrings {
		t.Run(v, func(t *testing.T) {
			params := map[string]any{"custom.text": v, "fusion.weights.bm25": 0.5, "retrievers": []any{v, "dense"}}
			data, err := overlay(params)
			if err != nil {
				t.Fatal(err)
			}
			got, err := render.ReadYAMLMap(data)
			if err != nil {
				t.Fatalf("rendered document does not parse: %v\n%s", err, data)
			}
			want := map[string]any{
				"custom":     map[string]any{"text": v},
				"fusion":     map[string]any{"method": "rrf", "k": 60, "weights": map[string]any{"bm25": 0.5}},
				"listen":     "127.0.0.1:0",
				"retrievers": []any{v, "dense"},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %#v\nwant %#v\ndocument:\n%s", got, want, data)
			}
		})
	}
	if base["fusion"].(map[string]any)["weights"] != nil {
		t.Error("rendering changed the base")
	}
}

// TestYAMLOverlayHostileKeys: a parameter name cannot smuggle structure
// either; dots make nesting, everything else is one key.
func TestYAMLOverlayHostileKeys(t *testing.T) {
	overlay := render.YAMLOverlay(map[string]any{})
	for _, k := range []string{"custom.a: b", "custom.&x", "custom.*x", "custom.\nfusion", "custom.#c", "custom.\"q"} {
		data, err := overlay(map[string]any{k: "v"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := render.ReadYAMLMap(data)
		if err != nil {
			t.Fatalf("%q: %v\n%s", k, err, data)
		}
		want := map[string]any{"custom": map[string]any{strings.TrimPrefix(k, "custom."): "v"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v", k, got)
		}
	}
}

// FuzzYAMLOverlay: any string value (valid UTF-8; YAML cannot carry other
// bytes) at any dotted path renders to a document that parses back to it.
func FuzzYAMLOverlay(f *testing.F) {
	for _, v := range hostileStrings {
		f.Add("custom.x", v)
	}
	f.Add("fusion.weights.bm25", "0.5")
	f.Fuzz(func(t *testing.T, key, value string) {
		if !utf8.ValidString(value) || !utf8.ValidString(key) || key == "" {
			return
		}
		parts := strings.Split(key, ".")
		for _, p := range parts {
			if p == "" {
				return
			}
		}
		data, err := render.YAMLOverlay(map[string]any{})(map[string]any{key: value})
		if err != nil {
			t.Fatal(err)
		}
		got, err := render.ReadYAMLMap(data)
		if err != nil {
			t.Fatalf("does not parse: %v\n%s", err, data)
		}
		var cur any = got
		for _, p := range parts {
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("path %q lost at %q:\n%s", key, p, data)
			}
			cur = m[p]
		}
		if cur != value {
			t.Fatalf("value %q came back as %#v:\n%s", value, cur, data)
		}
	})
}
