package backend_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/engine"
	"github.com/fusiontune/fusiontune/backend/postgres"
	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// repoRoot is the module's root, seen from this package's directory.
const repoRoot = ".."

// paramLike matches what reads as a parameter name: a dotted name under
// one of the parameter groups, or one of the bare names.
var paramLike = regexp.MustCompile(`^((fusion|chunk|bm25|dense|rerank)\.[A-Za-z0-9_.<>]*|depth|min_score|retrievers|alpha|fusionType|passage)$`)

// notParams are names that read as parameters but name something else:
// engine config keys no trial sets, files and features. Each is spelled
// somewhere in the code or the README on purpose.
var notParams = map[string]string{
	"dense.base_url":     "engine config key: the openai: server, not a trial parameter",
	"dense.api_key_env":  "engine config key: the variable holding the openai: key",
	"dense.max_retries":  "engine config key: retries of a failed openai: request",
	"fusion.policy":      "engine config key: a query-adaptive fusion policy's file",
	"bm25.text_config":   "postgres config field; trials set it as postgres.ParamTextConfig",
	"bm25.idx":           "the engine's lexical index directory",
	"bm25.matches":       "a fusion policy feature (BM25 candidates within the depth)",
	"dense.top":          "a fusion policy feature (the dense list's top score)",
	"rerank.url":         "engine config key: the reranker's endpoint",
	"rerank.model":       "engine config key: the reranker's model name",
	"rerank.format":      "engine config key: the reranker endpoint's shape",
	"rerank.api_key_env": "engine config key: the variable holding the reranker's key",
}

// checkName returns what is wrong with name, a parameter name a layer
// spells, or "" when the parameter table knows it (backend.KnownParam) or
// it is a prefix of the table's names ("fusion.") or one of notParams.
func checkName(name string) string {
	if backend.KnownParam(name) || notParams[name] != "" {
		return ""
	}
	if strings.HasSuffix(name, ".") {
		for _, n := range backend.ParamNames() {
			if strings.HasPrefix(n, name) {
				return ""
			}
		}
		return "a prefix of no parameter of the table"
	}
	return "not in the parameter table (backend/params.go)"
}

// TestAdaptersSpellTableNames: every name an adapter declares it takes is
// the parameter table's. (Experiment files' names are the table's by
// construction: experiments.LookupParam is backend.LookupParam's.)
func TestAdaptersSpellTableNames(t *testing.T) {
	for _, tc := range []struct {
		layer string
		names []string
	}{
		{"engine.ParamNames", engine.ParamNames()},
		{"postgres.Params", postgres.Params},
		{"weaviate.Params", weaviate.Params},
		{"weaviate.Accepted", weaviate.Accepted()},
		{"engine prefixes", []string{engine.CustomPrefix, engine.WeightPrefix}},
	} {
		if len(tc.names) == 0 {
			t.Errorf("%s: no names", tc.layer)
		}
		for _, n := range tc.names {
			if msg := checkName(n); msg != "" {
				t.Errorf("%s spells %q: %s", tc.layer, n, msg)
			}
		}
	}
}

// TestSourceSpellsTableNames parses every non-test Go file of the module
// and checks each string literal that reads as a parameter name
// (paramLike) against the parameter table: a layer spelling a name the
// table lacks fails here, naming the file and line.
func TestSourceSpellsTableNames(t *testing.T) {
	fset := token.NewFileSet()
	files, literals := 0, 0
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != repoRoot && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !paramLike.MatchString(s) {
				return true
			}
			literals++
			if msg := checkName(s); msg != "" {
				t.Errorf("%s: %q: %s", fset.Position(lit.Pos()), s, msg)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || literals < 50 {
		t.Fatalf("read %d files, %d parameter-like literals: the walk missed the module?", files, literals)
	}
	t.Logf("%d files, %d parameter-like literals", files, literals)
}

// TestParamLike pins what the source scan takes for a parameter name.
func TestParamLike(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"fusion.k", true},
		{"fusion.weights.<retriever>", true},
		{"fusion.", true},
		{"rerank.top_n", true},
		{"depth", true},
		{"fusionType", true},
		{"fusion", false},
		{"fusion.k: must be > 0", false},
		{"Depth", false},
		{"custom.boost", false},
	} {
		if got := paramLike.MatchString(tc.s); got != tc.want {
			t.Errorf("paramLike(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	if msg := checkName("rerank.top_n"); msg == "" {
		t.Error("checkName takes a name the table lacks")
	}
	for _, n := range slices.Concat(backend.ParamNames(), []string{"fusion.weights.bm25", "fusion.", "custom.x"}) {
		if msg := checkName(n); msg != "" {
			t.Errorf("checkName(%q): %s", n, msg)
		}
	}
}
