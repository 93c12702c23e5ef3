package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBooleanSpellings: in a settings file a boolean is a YAML boolean
// (true or false, any of YAML's cases), never a number or a quoted word;
// a FUSIONTUNE_* variable may use any strconv.ParseBool spelling (1, t,
// TRUE...), as environment variables conventionally do.
func TestBooleanSpellings(t *testing.T) {
	for _, tc := range []struct {
		name, file, env string
		want            bool
		err             string // "" = accepted
	}{
		{name: "file true", file: "true", want: true},
		{name: "file TRUE", file: "TRUE", want: true},
		{name: "file False", file: "False"},
		{name: "file 1", file: "1", err: `tune.yaml:2:23: dataset.allow_missing_docs: want true or false (got "1")`},
		{name: "file 0", file: "0", err: `want true or false (got "0")`},
		{name: "file quoted", file: `"true"`, err: `want true or false (got "true")`},
		{name: "file yes", file: "yes", err: `want true or false (got "yes")`},
		{name: "env 1", env: "1", want: true},
		{name: "env t", env: "t", want: true},
		{name: "env false", env: "false"},
		{name: "env yes", env: "yes", err: `FUSIONTUNE_DATASET_ALLOW_MISSING_DOCS: dataset.allow_missing_docs: want a boolean (true, false, 1 or 0) (got "yes")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := ""
			if tc.file != "" {
				file = filepath.Join(dir, "tune.yaml")
				if err := os.WriteFile(file, []byte("dataset:\n  allow_missing_docs: "+tc.file+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.env != "" {
				t.Setenv("FUSIONTUNE_DATASET_ALLOW_MISSING_DOCS", tc.env)
			}
			s, err := load(file)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Dataset.AllowMissingDocs != tc.want {
				t.Errorf("allow_missing_docs = %v, want %v", s.Dataset.AllowMissingDocs, tc.want)
			}
		})
	}
}
