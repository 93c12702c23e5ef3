package architecture_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/fusiontune/fusiontune"

// pkg is what `go list -json` says of one of our packages.
type pkg struct {
	ImportPath string
	Dir        string
	Name       string
	GoFiles    []string
	Imports    []string
}

// rel is p's path inside the module ("tuner/verdict").
func (p pkg) rel() string { return strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/") }

// ours lists p's imports of our own packages, by their path inside the
// module.
func (p pkg) ours() []string {
	var out []string
	for _, imp := range p.Imports {
		if imp == module || strings.HasPrefix(imp, module+"/") {
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(imp, module), "/"))
		}
	}
	return out
}

// under reports whether path is root or below it.
func under(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

// testSupport reports whether a package exists for tests only: its name
// ends in "test" (enginetest, pgtest, sweeptest …) or it finds the shared
// evaluation data for tests.
func testSupport(p pkg) bool {
	return strings.HasSuffix(p.Name, "test") || p.rel() == "experiments/shareddata"
}

// listPackages runs `go list -json` on the whole module.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: not the module", len(pkgs))
	}
	return pkgs
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// rule says whether package from may import package to (both paths
// inside the module), and why not.
type rule struct {
	name  string
	from  func(pkg) bool
	allow func(to string) bool
}

var rules = []rule{
	{
		name:  "a leaf (internal/...) imports only other leaves",
		from:  func(p pkg) bool { return under(p.rel(), "internal") },
		allow: func(to string) bool { return under(to, "internal") },
	},
	{
		name:  "metrics imports nothing of ours but leaves",
		from:  func(p pkg) bool { return under(p.rel(), "metrics") && !testSupport(p) },
		allow: func(to string) bool { return under(to, "internal") || under(to, "metrics") },
	},
	{
		name: "backend imports neither the workflows above it (tuner, runs, experiments), the scoring (metrics) nor the command",
		from: func(p pkg) bool { return under(p.rel(), "backend") && !testSupport(p) },
		allow: func(to string) bool {
			return !under(to, "tuner") && !under(to, "runs") && !under(to, "experiments") && !under(to, "metrics") && !under(to, "cmd")
		},
	},
	{
		name:  "runs and experiments import neither tuner nor the command",
		from:  func(p pkg) bool { return (under(p.rel(), "runs") || under(p.rel(), "experiments")) && !testSupport(p) },
		allow: func(to string) bool { return !under(to, "tuner") && !under(to, "cmd") },
	},
	{
		name:  "no package below tuner imports tuner (the lifecycle uses its subpackages, never the reverse)",
		from:  func(p pkg) bool { return strings.HasPrefix(p.rel(), "tuner/") },
		allow: func(to string) bool { return to != "tuner" },
	},
	{
		name:  "nothing imports the command",
		from:  func(p pkg) bool { return !under(p.rel(), "cmd") },
		allow: func(to string) bool { return !under(to, "cmd") },
	},
}

// TestImportRules checks every rule on every package's non-test imports.
func TestImportRules(t *testing.T) {
	for _, p := range listPackages(t) {
		for _, r := range rules {
			if !r.from(p) {
				continue
			}
			for _, to := range p.ours() {
				if !r.allow(to) {
					t.Errorf("%s imports %s: %s", p.rel(), to, r.name)
				}
			}
		}
	}
}

// envFuncs are the os functions that read the environment.
var envFuncs = map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true}

// TestOnlyCmdReadsTheEnvironment: outside cmd (and the test-support
// packages and scripts), no non-test file calls os.Getenv, os.LookupEnv,
// os.Environ or os.ExpandEnv; values are passed down from the command.
func TestOnlyCmdReadsTheEnvironment(t *testing.T) {
	for _, p := range listPackages(t) {
		if under(p.rel(), "cmd") || under(p.rel(), "scripts") || testSupport(p) {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			for _, call := range envCalls(t, path) {
				t.Errorf("%s: os.%s: only cmd reads the environment (pass the value down)", call.pos, call.fn)
			}
		}
	}
}

type envCall struct {
	pos string
	fn  string
}

// envCalls lists the os.<env function> selectors in the file at path.
func envCalls(t *testing.T, path string) []envCall {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	osName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os"` {
			osName = "os"
			if imp.Name != nil {
				osName = imp.Name.Name
			}
		}
	}
	if osName == "" {
		return nil
	}
	var out []envCall
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && envFuncs[sel.Sel.Name] {
			out = append(out, envCall{pos: fset.Position(sel.Pos()).String(), fn: sel.Sel.Name})
		}
		return true
	})
	return out
}

// TestEveryPackageHasADocGo: every package (but main packages) says what
// it owns in a package comment in its doc.go.
func TestEveryPackageHasADocGo(t *testing.T) {
	var missing []string
	for _, p := range listPackages(t) {
		if p.Name == "main" {
			continue
		}
		path := filepath.Join(p.Dir, "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), "Package "+p.Name+" ") {
			missing = append(missing, p.rel())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("packages without a doc.go whose comment starts %q:\n  %s", "Package <name> ", strings.Join(missing, "\n  "))
	}
}

// Size limits of a package's non-test code.
const (
	maxFiles         = 40
	maxLines         = 6000
	maxTunerExported = 80
)

// TestPackageSizes: no package holds over maxFiles non-test files or
// maxLines non-test lines, and tuner, the run lifecycle, exports at most
// maxTunerExported package-level names (make codesize prints them all).
func TestPackageSizes(t *testing.T) {
	for _, p := range listPackages(t) {
		lines, exported := 0, 0
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines += bytes.Count(data, []byte("\n"))
			f, err := parser.ParseFile(token.NewFileSet(), path, data, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			exported += exportedNames(f)
		}
		if len(p.GoFiles) > maxFiles || lines > maxLines {
			t.Errorf("%s: %d non-test files, %d lines: over %d files or %d lines (split it by concept)", p.rel(), len(p.GoFiles), lines, maxFiles, maxLines)
		}
		if p.rel() == "tuner" && exported > maxTunerExported {
			t.Errorf("tuner exports %d names: over %d (what does not run the lifecycle belongs in a subpackage)", exported, maxTunerExported)
		}
	}
}

// exportedNames counts f's exported package-level funcs, types, vars and
// consts (methods aside), as scripts/pkgsize does.
func exportedNames(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				n++
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

var update = flag.Bool("update", false, "rewrite the \"Imports of ours\" line of every doc.go that differs from its package's imports")

// rewriteImports replaces the "Imports of ours" paragraph that ends the
// doc comment of the doc.go at path with one listing imports, wrapped at
// 76 columns.
func rewriteImports(path, imports string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	src := string(data)
	at := strings.LastIndex(src, "// Imports of ours: ")
	end := strings.Index(src[at:], "\npackage ")
	if at < 0 || end < 0 {
		return fmt.Errorf("%s: no \"Imports of ours\" paragraph before the package clause", path)
	}
	var b strings.Builder
	line := "//"
	for _, w := range strings.Fields("Imports of ours: " + imports + ".") {
		if len(line)+1+len(w) > 76 && line != "//" {
			b.WriteString(line + "\n")
			line = "//"
		}
		line += " " + w
	}
	b.WriteString(line)
	return os.WriteFile(path, []byte(src[:at]+b.String()+src[at+end:]), 0o644)
}

// TestDocSaysItsImports: every package's doc comment ends with the rooms
// it imports ("Imports of ours: backend, runs." or "none."), equal to what
// it imports, so that a new arrow between rooms is a decision written
// down, never an accident.
func TestDocSaysItsImports(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.Name == "main" {
			continue
		}
		path := filepath.Join(p.Dir, "doc.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || f.Doc == nil {
			continue // TestEveryPackageHasADocGo says so
		}
		text := strings.Join(strings.Fields(f.Doc.Text()), " ")
		at := strings.LastIndex(text, "Imports of ours: ")
		if at < 0 {
			t.Errorf("%s: its doc comment does not end with \"Imports of ours: …\"", path)
			continue
		}
		said := strings.TrimSuffix(text[at+len("Imports of ours: "):], ".")
		want := strings.Join(p.ours(), ", ")
		if want == "" {
			want = "none"
		}
		if said != want && *update {
			if err := rewriteImports(path, want); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if said != want {
			t.Errorf("%s: says \"Imports of ours: %s.\", imports %s (update the doc comment, or run this test with -update: a new arrow between rooms is a decision)", path, said, want)
		}
	}
}
