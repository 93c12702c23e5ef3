package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fusiontune/fusiontune/experiments"
)

// pathSetting is one setting that names a file or directory.
type pathSetting struct {
	key string  // as in the settings file: dataset.corpus, datasets[1].path
	ptr *string // the value, resolved in place
	// command: the value is argv[0]: a path only when it holds a slash
	// ("./search-server"), else a program looked up in PATH.
	command bool
}

// pathSettings lists every setting that is a path, the engine's path keys
// under backend.engine included.
func (s *Settings) pathSettings() []pathSetting {
	out := datasetPaths("dataset", &s.Dataset)
	for i := range s.Datasets {
		out = append(out, datasetPaths(fmt.Sprintf("datasets[%d]", i), &s.Datasets[i])...)
	}
	b := &s.Backend
	out = append(out,
		pathSetting{key: "backend.config", ptr: &b.Config},
		pathSetting{key: "backend.template", ptr: &b.Template},
		pathSetting{key: "runs_dir", ptr: &s.RunsDir},
		pathSetting{key: "backend.postgres.corpus", ptr: &b.Postgres.Corpus},
		pathSetting{key: "backend.vectors.corpus", ptr: &b.Vectors.Corpus},
		pathSetting{key: "backend.weaviate.corpus", ptr: &b.Weaviate.Corpus},
		pathSetting{key: "backend.weaviate.bin", ptr: &b.Weaviate.Bin, command: true},
		pathSetting{key: "backend.lancedb.sidecar", ptr: &b.LanceDB.Sidecar},
		pathSetting{key: "backend.lancedb.uri", ptr: &b.LanceDB.URI},
		pathSetting{key: "backend.lancedb.corpus", ptr: &b.LanceDB.Corpus},
		pathSetting{key: "backend.lancedb.node", ptr: &b.LanceDB.Node, command: true},
	)
	if len(b.Command) > 0 {
		out = append(out, pathSetting{key: "backend.command[0]", ptr: &b.Command[0], command: true})
	}
	if len(b.Restart) > 0 {
		out = append(out, pathSetting{key: "backend.restart[0]", ptr: &b.Restart[0], command: true})
	}
	return out
}

func datasetPaths(prefix string, d *experiments.DatasetConfig) []pathSetting {
	return []pathSetting{
		{key: prefix + ".path", ptr: &d.Path},
		{key: prefix + ".judgments", ptr: &d.Judgments},
		{key: prefix + ".corpus", ptr: &d.Corpus},
	}
}

// enginePathKeys are the embedded engine's settings that name files or
// directories (see engine.Config): corpus.path, cache_dir and the
// file: of dense.model.
var enginePathKeys = []string{"corpus.path", "cache_dir", "dense.model"}

// ResolvePaths resolves every relative path of the settings: those
// written in the settings file against the file's directory, those from
// flags, environment variables and defaults against the working directory
// (where they stay relative, as written). The engine's paths become
// absolute, since the engine runs in the run directory. It records each
// path as written, for messages.
func (s *Settings) ResolvePaths() error {
	fileDir := "."
	if s.File != "" {
		fileDir = filepath.Dir(s.File)
	}
	s.Written, s.Given = map[string]string{}, map[string]bool{}
	for _, p := range s.pathSettings() {
		v := *p.ptr
		if v != "" {
			s.Given[p.key] = true
		}
		if strings.TrimSpace(v) == "" || filepath.IsAbs(v) || (p.command && !strings.ContainsRune(v, '/')) {
			continue // a blank path is left for validate to refuse
		}
		s.Written[p.key] = v
		if s.Src.InFile(p.key) {
			*p.ptr = filepath.Join(fileDir, v)
			if p.command && !strings.ContainsRune(*p.ptr, '/') {
				*p.ptr = "./" + *p.ptr // still a path, not a PATH lookup
			}
		}
	}
	// A file:<path> embedder of the lancedb kind (precomputed query
	// vectors) is a path too.
	if v, ok := strings.CutPrefix(s.Backend.LanceDB.Model, "file:"); ok && v != "" && !filepath.IsAbs(v) && s.Src.InFile("backend.lancedb.model") {
		s.Written["backend.lancedb.model"] = s.Backend.LanceDB.Model
		s.Backend.LanceDB.Model = "file:" + filepath.Join(fileDir, v)
	}
	absDir, err := filepath.Abs(fileDir)
	if err != nil {
		return fmt.Errorf("settings %s: %w", s.File, err)
	}
	for _, k := range enginePathKeys {
		s.resolveEnginePath(k, absDir)
	}
	return nil
}

// resolveEnginePath resolves the backend.engine path key k (only the
// settings file sets backend.engine) against dir.
func (s *Settings) resolveEnginePath(k, dir string) {
	m, last := engineLeaf(s.Backend.Engine, k)
	v, _ := m[last].(string)
	prefix := ""
	if k == "dense.model" {
		var isFile bool
		if v, isFile = strings.CutPrefix(v, "file:"); !isFile {
			return
		}
		prefix = "file:"
	}
	if v == "" || filepath.IsAbs(v) {
		return
	}
	s.Written["backend.engine."+k] = v
	m[last] = prefix + filepath.Join(dir, v)
}

// CheckInputs checks that every input file the settings name exists (the
// dataset in use, the template, the engine's corpus and vectors), before
// any run directory is created or any backend starts. Each problem names
// the setting's place, the path as written and as resolved.
func (s *Settings) CheckInputs() error {
	type input struct {
		key, path string
	}
	var ins []input
	prefix := "dataset"
	for i, d := range s.Datasets {
		if s.DatasetID != "" && d.ID == s.DatasetID {
			prefix = fmt.Sprintf("datasets[%d]", i)
		}
	}
	for _, p := range datasetPaths(prefix, &s.Dataset) {
		if s.Given[p.key] { // not a default, such as a BEIR folder's corpus
			ins = append(ins, input{p.key, *p.ptr})
		}
	}
	if s.Given["backend.template"] {
		ins = append(ins, input{"backend.template", s.Backend.Template})
	}
	for _, k := range []string{"corpus.path", "dense.model"} { // cache_dir is created
		if v := engineString(s.Backend.Engine, k); v != "" {
			if k == "dense.model" {
				var isFile bool
				if v, isFile = strings.CutPrefix(v, "file:"); !isFile {
					continue
				}
			}
			ins = append(ins, input{"backend.engine." + k, v})
		}
	}
	var problems experiments.Problems
	for _, in := range ins {
		if in.path == "" {
			continue
		}
		if _, err := os.Stat(in.path); err != nil {
			what := "no such file or directory"
			if !errors.Is(err, os.ErrNotExist) {
				what = err.Error()
			}
			problems = append(problems, s.Src.Problem(in.key, "%s: %s", s.describePath(in.key, in.path), what))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	return nil
}

// describePath shows a path setting as written and, when relative, as
// resolved: `"corpus.jsonl" (resolved against the settings file's
// directory to ../data/corpus.jsonl)`.
func (s *Settings) describePath(key, path string) string {
	w, ok := s.Written[key]
	switch {
	case !ok:
		return fmt.Sprintf("%q", path)
	case s.Src.InFile(key) || strings.HasPrefix(key, "backend.engine."):
		return fmt.Sprintf("%q (resolved against the settings file's directory to %s)", w, ShownPath(path))
	}
	wd, _ := os.Getwd() // a flag's or the environment's
	return fmt.Sprintf("%q (resolved against the working directory %s)", w, wd)
}

// ShownPath is an absolute path relative to the working directory when it
// lies below it (shorter, and the same on every machine).
func ShownPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return path
	}
	return rel
}

// engineString is the string at dotted key k of the engine settings.
func engineString(m map[string]any, k string) string {
	m, last := engineLeaf(m, k)
	v, _ := m[last].(string)
	return v
}

// engineLeaf returns the map holding dotted key k of the engine settings
// and k's last element; the map is nil when a parent is missing.
func engineLeaf(m map[string]any, k string) (map[string]any, string) {
	parts := strings.Split(k, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, ""
		}
		m = next
	}
	return m, parts[len(parts)-1]
}
