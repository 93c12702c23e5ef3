package main_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// repoRoot is the repository's root, two levels above cmd/tune.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestDocs runs the manual (see docs_parse_test.go for the markers): on
// every page each tune, make and scripts/ reference is checked, the files
// it shows are written or checked, and its sh blocks run in order in a
// working directory of the page's own against the built tune, each with
// its expected exit code and output.
func TestDocs(t *testing.T) {
	root := repoRoot(t)
	pages, err := manualPages(root)
	if err != nil {
		t.Fatal(err)
	}
	checker := newDocChecker(t, root)
	bin := tuneBinary(t)
	binDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(binDir, "tune")); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	named := testNames(t, root)
	for _, rel := range pages {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Fatal(err)
			}
			p := parseDoc(rel, string(data))
			for _, e := range p.errs {
				t.Error(e)
			}
			for _, e := range checker.page(p) {
				t.Error(e)
			}
			for _, b := range p.blocks {
				if name, ok := b.markers["readme-test"]; ok && !named[name] {
					t.Errorf("%s:%d: readme-test %q: no test reads it (sweeptest.README(t, %q, ...))", rel, b.line, name, name)
				}
			}
			runPage(t, root, p, binDir, cache)
		})
	}
}

// page checks every command line a page shows.
func (c *docChecker) page(p *docPage) []string {
	var problems []string
	add := func(line int, ps []string) {
		for _, s := range ps {
			problems = append(problems, fmt.Sprintf("%s:%d: %s", p.rel, line, s))
		}
	}
	for _, b := range p.blocks {
		switch {
		case b.has("doc-mistyped"):
			// shows a mistake on purpose; it must exit 2 (runPage)
		case b.lang == "sh":
			add(b.line, c.script(b.text))
		case b.lang == "text":
			for i, l := range strings.Split(b.text, "\n") {
				for _, part := range shellJoin.Split(l, -1) {
					part = strings.TrimPrefix(strings.TrimSpace(part), "$ ")
					if strings.HasPrefix(part, "tune ") || strings.HasPrefix(part, "make ") {
						add(b.line+1+i, c.synopsis(part))
					}
				}
			}
		}
	}
	for _, s := range p.spans {
		add(s.line, c.synopsis(s.text))
	}
	for _, l := range p.links {
		add(l.line, c.link(p.rel, l.text))
	}
	return problems
}

// shellJoin separates the commands of a usage line: && || ; and a pipe
// between spaces (a | without spaces is a synopsis's alternative).
var shellJoin = regexp.MustCompile(`\s(?:&&|\|\||;|\|)\s`)

// link checks a relative link: its file exists and, with an anchor, has
// a heading of that slug (GitHub's: lower case, punctuation dropped,
// spaces as hyphens).
func (c *docChecker) link(page, target string) []string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	path, anchor, _ := strings.Cut(target, "#")
	file := filepath.Join(c.root, filepath.Dir(page), path)
	if path == "" {
		file = filepath.Join(c.root, page)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		if info, serr := os.Stat(file); serr == nil && info.IsDir() && anchor == "" {
			return nil
		}
		return []string{fmt.Sprintf("link %s: %v", target, err)}
	}
	if anchor == "" {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok && slug(strings.TrimLeft(h, "#")) == anchor {
			return nil
		}
	}
	return []string{fmt.Sprintf("link %s: no heading %q in %s", target, anchor, path)}
}

var slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)

// slug is GitHub's anchor of a heading.
func slug(heading string) string {
	s := slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), "")
	return strings.ReplaceAll(s, " ", "-")
}

// testNames is every quoted string of the repository's test files that a
// readme-test marker could name.
func testNames(t *testing.T, root string) map[string]bool {
	names := map[string]bool{}
	re := regexp.MustCompile(`sweeptest\.README\(t, "([^"]+)"`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		data, err := os.ReadFile(path)
		for _, m := range re.FindAllSubmatch(data, -1) {
			names[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// runPage plays a page: the doc-setup copies, then each block in order.
func runPage(t *testing.T, root string, p *docPage, binDir, cache string) {
	dir := t.TempDir()
	for _, s := range p.setup {
		dest, src, ok := strings.Cut(s, "=")
		if !ok {
			src = dest
		}
		copyTree(t, filepath.Join(root, src), filepath.Join(dir, dest))
	}
	env := []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cache}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FUSIONTUNE_") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	var last string // the output of the last sh block run
	lastLine := 0
	for _, b := range p.blocks {
		at := fmt.Sprintf("%s:%d", p.rel, b.line)
		switch {
		case b.has("doc-file"):
			path := filepath.Join(dir, b.markers["doc-file"])
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
		case b.has("doc-check"):
			file := filepath.Join(dir, fmt.Sprintf("doc-check-%d.%s", b.line, b.lang))
			if err := os.WriteFile(file, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"check"}, strings.Fields(b.markers["doc-check"])...)
			out, code := runShell(t, dir, env, "tune "+strings.Join(args, " ")+" "+filepath.Base(file))
			if code != 0 {
				t.Errorf("%s: tune %s on the block: exit %d\n%s", at, strings.Join(args, " "), code, out)
			}
		case b.lang == "sh" && !b.has("doc-skip"):
			want := 0
			if s, ok := b.markers["doc-exit"]; ok {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: doc-exit %q: want a number", at, s)
				}
				want = n
			}
			out, code := runShell(t, dir, env, b.text)
			if code != want {
				t.Errorf("%s: exit %d, want %d\n$ %s\n%s", at, code, want, strings.TrimSpace(b.text), out)
			}
			last, lastLine = out, b.line
		case b.has("doc-output"):
			if lastLine == 0 {
				t.Errorf("%s: doc-output with no sh block run before it", at)
				continue
			}
			if missing := outputMissing(b.text, last); len(missing) > 0 {
				t.Errorf("%s: output of the block at line %d lacks\n%s\ngot:\n%s", at, lastLine, strings.Join(missing, "\n"), last)
			}
		}
	}
}

// runShell runs script with bash (errexit, pipefail) in dir and returns its
// combined output and exit code. The background jobs it leaves (a tune
// serve a failed block never killed) are killed when it exits, and the
// block runs in a process group of its own, killed whole on a timeout.
func runShell(t *testing.T, dir string, env []string, script string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -eo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"+script)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	return string(out), 0
}

// TestDocCheckerFinds shows the checks failing: a renamed flag, a mistyped
// command, a missing make target or script, a file block nothing uses.
func TestDocCheckerFinds(t *testing.T) {
	c := newDocChecker(t, repoRoot(t))
	tests := []struct {
		name, page, want string
	}{
		{"renamed flag in sh", "```sh\ntune leaderboard latest --formats json\n```\n", "tune leaderboard has no flag --formats"},
		{"renamed flag after a global flag", "```sh\ntune --config t.yaml gate latest --runsdir x\n```\n", "tune gate has no flag --runsdir"},
		{"sweep flag", "```sh\nFUSIONTUNE_RUNS_DIR=r tune --experiment e.json\n```\n", "tune (the sweep) has no flag --experiment"},
		{"judge subcommand flag", "```sh\ntune judge run --pool p.jsonl --dryrun\n```\n", "tune judge run has no flag --dryrun"},
		{"unknown command", "```sh\ntune leaderbord\n```\n", `unknown command "leaderbord"`},
		{"flag in a synopsis", "```text\ntune compare RUN[:TRIAL] RUN[:TRIAL] [--formats text|json]\n```\n", "tune compare has no flag --formats"},
		{"flag in an inline span", "Use `tune apply RUN --forced`.\n", "tune apply has no flag --forced"},
		{"bare flag", "Pass `--apply-bst`.\n", "no tune command has the flag --apply-bst"},
		{"make target", "```sh\nRUNS=3 make bench-overheads\n```\n", `the Makefile has no target "bench-overheads"`},
		{"script", "Run `scripts/bench-nothing.sh`.\n", "scripts/bench-nothing.sh: no such file"},
		{"unused file block", "```yaml\na: 1\n```\n", "a yaml block the test does not use"},
		{"block without language", "```\ntune runs\n```\n", "without a language"},
		{"unknown marker", "<!-- doc-run -->\n```sh\ntune runs\n```\n", `unknown marker "doc-run"`},
		{"mistyped without exit 2", "<!-- doc-mistyped -->\n```sh\ntune leaderbord\n```\n", "doc-mistyped marks an sh block that exits 2"},
		{"missing page", "See [it](docs/nothing.md).\n", "link docs/nothing.md:"},
		{"missing anchor", "See [it](README.md#no-such-heading).\n", `no heading "no-such-heading"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseDoc("page.md", tt.page)
			got := strings.Join(append(p.errs, c.page(p)...), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
	// And nothing to report on correct lines.
	ok := "```sh\ntune --config t.yaml gate latest --runs-dir x 2>&1 | head\nmake demo\n```\n" +
		"```text\ntune eval --qrels Q --run R [-m MEASURE]... [-q] [-c] [-l N]\n```\n`tune eval -l2 -mP.10 q r` and `--apply-best`, [the demo](README.md#the-demo).\n"
	p := parseDoc("ok.md", ok)
	if got := append(p.errs, c.page(p)...); len(got) > 0 {
		t.Errorf("problems on correct lines: %q", got)
	}
}

// TestOutputMissing pins the doc-output matching.
func TestOutputMissing(t *testing.T) {
	got := "run 20260101T000000Z-abc: 27 trials\ntime: 0.3s wall\n"
	tests := []struct {
		want    string
		missing int
	}{
		{"run ...: 27 trials\n...\ntime: ...wall\n", 0},
		{"run ...: 28 trials\n", 1},
		{"time: ... run\n", 1},
	}
	for _, tt := range tests {
		if m := outputMissing(tt.want, got); len(m) != tt.missing {
			t.Errorf("outputMissing(%q) = %q, want %d lines", tt.want, m, tt.missing)
		}
	}
}

// TestHelpExamples: every command's help (tune's own, every command's and
// every judge subcommand's) ends with examples, whose commands and flags
// exist.
func TestHelpExamples(t *testing.T) {
	c := newDocChecker(t, repoRoot(t))
	for name, text := range c.help.texts {
		_, ex, ok := strings.Cut(text, "\nExamples:\n")
		if !ok || strings.TrimSpace(ex) == "" {
			t.Errorf("tune %s --help: no examples at its end", name)
			continue
		}
		if strings.Contains(ex, "\n\n") {
			t.Errorf("tune %s --help: something follows the examples:\n%s", name, ex)
		}
		for _, p := range c.script(ex) {
			t.Errorf("tune %s --help: example: %s", name, p)
		}
	}
}
