package process_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/process"
)

// hostile are parameter values that would break out of a naively
// templated YAML document or shell command.
var hostile = []string{
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

// TestYAMLOverlayHostileValues renders every hostile value at a nested
// path and as a key's sibling: the document parses back to exactly the
// same values, nothing else is added, and the base is untouched.
func TestYAMLOverlayHostileValues(t *testing.T) {
	base := map[string]any{"fusion": map[string]any{"method": "rrf", "k": 60}, "listen": "127.0.0.1:0"}
	render := process.YAMLOverlay(base)
	for _, v := range hostile {
		t.Run(v, func(t *testing.T) {
			params := map[string]any{"custom.text": v, "fusion.weights.bm25": 0.5, "retrievers": []any{v, "dense"}}
			data, err := render(params)
			if err != nil {
				t.Fatal(err)
			}
			got, err := process.ReadYAMLMap(data)
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
	render := process.YAMLOverlay(map[string]any{})
	for _, k := range []string{"custom.a: b", "custom.&x", "custom.*x", "custom.\nfusion", "custom.#c", "custom.\"q"} {
		data, err := render(map[string]any{k: "v"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := process.ReadYAMLMap(data)
		if err != nil {
			t.Fatalf("%q: %v\n%s", k, err, data)
		}
		want := map[string]any{"custom": map[string]any{strings.TrimPrefix(k, "custom."): "v"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v", k, got)
		}
	}
}

// TestArgvHelperProcess is not a test: started by TestCommandArgvNoShell,
// it writes the arguments after "--" as JSON to $ARGV_OUT.
func TestArgvHelperProcess(t *testing.T) {
	out := os.Getenv("ARGV_OUT")
	if out == "" {
		t.Skip("helper process only")
	}
	for i, a := range os.Args {
		if a == "--" {
			data, _ := json.Marshal(os.Args[i+1:])
			os.WriteFile(out, data, 0o644)
			os.Exit(0)
		}
	}
	os.Exit(3)
}

// TestCommandArgvNoShell starts a real service whose argv holds hostile
// values and the {config} placeholder inside a path with shell syntax:
// each arrives as one argument, byte for byte, and nothing is evaluated
// (the marker file a shell would create never appears).
func TestCommandArgvNoShell(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	out := filepath.Join(dir, "argv.json")
	cfg := filepath.Join(dir, "weird $(touch "+marker+") `touch "+marker+"`; name.yaml")
	hostileArgs := []string{"$(touch " + marker + ")", "`touch " + marker + "`", "; touch " + marker, "a b", "\"; rm -rf /\"", "--config={config}"}
	b, err := process.New(process.Options{
		Command:      append([]string{os.Args[0], "-test.run=^TestArgvHelperProcess$", "--", "{config}"}, hostileArgs...),
		Env:          []string{"ARGV_OUT=" + out},
		ConfigPath:   cfg,
		Render:       process.YAMLOverlay(map[string]any{}),
		Dial:         func(string) (backend.Searcher, error) { return nil, errors.New("not used") },
		StartTimeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Apply(ctx, map[string]any{"custom.v": "$(touch " + marker + ")"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err = os.ReadFile(out); err == nil && len(data) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never wrote its argv")
		}
	}
	var got []string
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := append([]string{cfg}, hostileArgs[:len(hostileArgs)-1]...)
	want = append(want, "--config="+cfg)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("argv:\n got %q\nwant %q", got, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a hostile value was evaluated by a shell")
	}
}

// FuzzYAMLOverlay: any string value (valid UTF-8; YAML cannot carry other
// bytes) at any dotted path renders to a document that parses back to it.
func FuzzYAMLOverlay(f *testing.F) {
	for _, v := range hostile {
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
		data, err := process.YAMLOverlay(map[string]any{})(map[string]any{key: value})
		if err != nil {
			t.Fatal(err)
		}
		got, err := process.ReadYAMLMap(data)
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
