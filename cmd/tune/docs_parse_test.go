package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The manual (README.md, CHANGELOG.md and docs/**/*.md) is tested by
// TestDocs: every fenced block carries a language, and an HTML comment on
// the line (or lines) just before a block says what the test does with it:
//
//	<!-- doc-setup: DEST=SRC ... -->  (anywhere on the page) copy repository
//	                                  files or folders into the page's
//	                                  working directory before its blocks
//	<!-- doc-file: PATH -->           write the block to PATH there
//	<!-- doc-check: ARGS -->          write it to a file there and run
//	                                  `tune check ARGS FILE` (exit 0)
//	<!-- doc-exit: N -->              the sh block exits N (default 0)
//	<!-- doc-output -->               every line of this text block is in the
//	                                  output of the sh block before it
//	                                  ("..." elides: the parts around it
//	                                  appear in order within one line)
//	<!-- doc-skip: REASON -->         do not run the block (its commands
//	                                  are still checked)
//	<!-- doc-mistyped -->             the sh block shows a mistyped command
//	                                  or flag: it is not checked, and must
//	                                  exit 2
//	<!-- readme-test: NAME -->        a block other tests read by NAME
//	                                  (sweeptest.README)
//
// Each page runs in a working directory of its own, its sh blocks in
// order with `tune` first on PATH. Every `tune` command line in an sh
// block, a text block or an inline code span is checked against `tune
// COMMAND --help`: the command exists and so does every flag; `make
// TARGET` names a Makefile target and `scripts/...` an existing file.

// docBlock is one fenced block of a page.
type docBlock struct {
	line    int               // 1-based line of the opening fence
	lang    string            // the fence's info string (sh, yaml, text, ...)
	text    string            // the block's content, ending in a newline
	markers map[string]string // marker name -> argument ("" for none)
}

// has reports whether the block carries the marker name.
func (b docBlock) has(name string) bool { _, ok := b.markers[name]; return ok }

// docSpan is an inline code span of a page's prose.
type docSpan struct {
	line int
	text string
}

// docPage is one Markdown file of the manual.
type docPage struct {
	rel    string // path relative to the repository root
	blocks []docBlock
	spans  []docSpan
	links  []docSpan // relative and absolute link targets of the prose
	setup  []string  // doc-setup arguments, DEST=SRC or SRC
	errs   []string  // problems found while parsing
}

// blockMarkers are the marker names a block may carry.
var blockMarkers = []string{"doc-file", "doc-check", "doc-exit", "doc-output", "doc-skip", "doc-mistyped", "readme-test"}

// fileLangs are the fence languages of files: each such block must be
// written (doc-file), checked (doc-check), read by a test (readme-test) or
// skipped with a reason.
var fileLangs = []string{"yaml", "json", "jsonl", "tsv", "sql", "tmpl", "html"}

var (
	markerRe = regexp.MustCompile(`^<!-- ([a-z-]+)(?::\s*(.*?))?\s*-->$`)
	fenceRe  = regexp.MustCompile("^(\\s*)```(.*)$")
	spanRe   = regexp.MustCompile("`([^`\n]+)`")
	linkRe   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// parseDoc reads one page.
func parseDoc(rel, text string) *docPage {
	p := &docPage{rel: rel}
	lines := strings.Split(text, "\n")
	var pending map[string]string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if m := markerRe.FindStringSubmatch(trimmed); m != nil && (strings.HasPrefix(m[1], "doc-") || m[1] == "readme-test") {
			name, arg := m[1], m[2]
			switch {
			case name == "doc-setup":
				p.setup = append(p.setup, strings.Fields(arg)...)
			case slices.Contains(blockMarkers, name):
				if pending == nil {
					pending = map[string]string{}
				}
				pending[name] = arg
			default:
				p.errs = append(p.errs, fmt.Sprintf("%s:%d: unknown marker %q (want doc-setup or one of %s)", rel, i+1, name, strings.Join(blockMarkers, ", ")))
			}
			continue
		}
		if f := fenceRe.FindStringSubmatch(line); f != nil {
			indent, lang := f[1], strings.TrimSpace(f[2])
			b := docBlock{line: i + 1, lang: lang, markers: pending}
			pending = nil
			var body strings.Builder
			closed := false
			for i++; i < len(lines); i++ {
				if strings.TrimSpace(lines[i]) == "```" {
					closed = true
					break
				}
				body.WriteString(strings.TrimPrefix(lines[i], indent))
				body.WriteByte('\n')
			}
			b.text = body.String()
			if !closed {
				p.errs = append(p.errs, fmt.Sprintf("%s:%d: a fence that is never closed", rel, b.line))
			}
			if lang == "" {
				p.errs = append(p.errs, fmt.Sprintf("%s:%d: a fenced block without a language (sh, yaml, json, text, ...)", rel, b.line))
			}
			p.blocks = append(p.blocks, b)
			continue
		}
		if pending != nil && trimmed != "" {
			p.errs = append(p.errs, fmt.Sprintf("%s:%d: a marker not followed by a fenced block", rel, i))
			pending = nil
		}
		for _, m := range spanRe.FindAllStringSubmatch(line, -1) {
			p.spans = append(p.spans, docSpan{line: i + 1, text: m[1]})
		}
		for _, m := range linkRe.FindAllStringSubmatch(spanRe.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, docSpan{line: i + 1, text: m[1]})
		}
	}
	for _, b := range p.blocks {
		used := b.has("doc-file") || b.has("doc-check") || b.has("readme-test") || b.has("doc-skip")
		if slices.Contains(fileLangs, b.lang) && !used {
			p.errs = append(p.errs, fmt.Sprintf("%s:%d: a %s block the test does not use: mark it doc-file, doc-check, readme-test or doc-skip", rel, b.line, b.lang))
		}
		if b.has("doc-skip") && b.markers["doc-skip"] == "" {
			p.errs = append(p.errs, fmt.Sprintf("%s:%d: doc-skip needs a reason", rel, b.line))
		}
		if b.has("doc-mistyped") && (b.lang != "sh" || b.markers["doc-exit"] != "2") {
			p.errs = append(p.errs, fmt.Sprintf("%s:%d: doc-mistyped marks an sh block that exits 2 (doc-exit: 2)", rel, b.line))
		}
		if b.has("doc-output") && b.lang != "text" {
			p.errs = append(p.errs, fmt.Sprintf("%s:%d: doc-output marks a text block (got %q)", rel, b.line, b.lang))
		}
	}
	return p
}

// manualPages lists the manual's Markdown files under root, relative to
// it: README.md, CHANGELOG.md and every .md file under docs/.
func manualPages(root string) ([]string, error) {
	pages := []string{"README.md", "CHANGELOG.md"}
	var docs []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			docs = append(docs, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(docs)
	return append(pages, docs...), err
}

// outputMissing returns the lines of want (a doc-output block) that are
// not in got: blank lines and lines that are only "..." are skipped; "..."
// in a line elides, the parts around it appearing in order within one line
// of got.
func outputMissing(want, got string) []string {
	gotLines := strings.Split(got, "\n")
	var missing []string
	for _, w := range strings.Split(want, "\n") {
		w = strings.TrimRight(w, " \t")
		if strings.TrimSpace(w) == "" || strings.TrimSpace(w) == "..." {
			continue
		}
		parts := strings.Split(w, "...")
		if !slices.ContainsFunc(gotLines, func(g string) bool { return inOrder(g, parts) }) {
			missing = append(missing, w)
		}
	}
	return missing
}

// inOrder reports whether every part occurs in line, each after the one
// before it.
func inOrder(line string, parts []string) bool {
	for _, part := range parts {
		i := strings.Index(line, part)
		if i < 0 {
			return false
		}
		line = line[i+len(part):]
	}
	return true
}
