package sweeptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/settings"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// Options are a sweep's command-line choices.
type Options struct {
	// Mode is live, replay or auto ("": auto); Verify the replayed trials
	// verified live (0: none but the winner).
	Mode   string
	Verify int
	// Judge is the judge-as-you-tune request (--judge ...; none by
	// default).
	Judge settings.SweepJudge
	// Resume continues the interrupted run it names (--resume).
	Resume string
}

// Result is a finished sweep: its outcome and what it logged.
type Result struct {
	*tuner.Outcome
	Log string
}

// Trial is a leaderboard.json trial's fields tests read.
type Trial struct {
	Name    string  `json:"name"`
	Status  string  `json:"status"`
	Mode    string  `json:"mode"`
	Primary float64 `json:"primary"`
}

// Trials reads the run's leaderboard.json trials by name.
func (r *Result) Trials(t testing.TB) map[string]Trial {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.Run.Dir, "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lb struct {
		Trials []Trial `json:"trials"`
	}
	if err := json.Unmarshal(data, &lb); err != nil {
		t.Fatal(err)
	}
	out := map[string]Trial{}
	for _, tr := range lb.Trials {
		out[tr.Name] = tr
	}
	return out
}

// Sweep runs the experiment file exp under the settings file tuneYAML as
// `tune sweep --config tuneYAML --experiments exp` does (inputs checked,
// trials checked against the backend, replay options, the runs directory
// of the settings) and fails t unless it finishes.
func Sweep(t testing.TB, tuneYAML, exp string, o Options) *Result {
	t.Helper()
	r, err := Try(tuneYAML, exp, o)
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, r.Log)
	}
	return r
}

// Try is Sweep returning the error (r.Log holds what was logged).
func Try(tuneYAML, exp string, o Options) (*Result, error) {
	log := &syncBuffer{}
	r := &Result{}
	c, unlock, err := config(tuneYAML, exp, o, log)
	if err == nil {
		r.Outcome, err = tuner.Run(context.Background(), *c)
		unlock()
	}
	r.Log = log.String()
	return r, err
}

// config is the tuner.Config of the sweep, built as `tune sweep` builds it
// (Settings.PrepareSweep), with the runs directory of the settings locked
// (Config.Lock: unlock releases it).
func config(tuneYAML, exp string, o Options, log *syncBuffer) (*tuner.Config, func(), error) {
	var s settings.Settings
	if err := settings.Load(&s, &s, tuneYAML, nil, nil); err != nil {
		return nil, nil, err
	}
	mode := o.Mode
	if mode == "" {
		mode = "auto"
	}
	req := tuner.SweepRequest{Experiments: exp, Resume: o.Resume, Mode: mode, Verify: o.Verify}
	c, err := s.PrepareSweep(req, false, o.Judge, runs.NewRedactor(), log)
	if err != nil {
		return nil, nil, err
	}
	c.Progress = &tuner.TextProgress{W: log}
	if c.Store, err = runs.Open(s.RunsDir); err != nil {
		return nil, nil, err
	}
	unlock, err := c.Lock(req, false, s.Backend.Kind, s.Backend.Config, log)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return c, unlock, nil
}

// Promote promotes the sweep's best trial into the settings'
// backend.config as `tune sweep --apply-best` does (force: past the
// promotion policy) and fails t unless it succeeds; it returns what the
// promotion logged.
func Promote(t testing.TB, tuneYAML string, r *Result, force bool) string {
	t.Helper()
	_, log, err := TryPromote(tuneYAML, r, "", force)
	if err != nil {
		t.Fatalf("promote: %v\n%s", err, log)
	}
	return log
}

// TryPromote promotes the sweep's trial named trial ("": the best) as
// `tune apply RUN TRIAL` does (force: --force), returning the promotion,
// what it logged and its error.
func TryPromote(tuneYAML string, r *Result, trial string, force bool) (*promote.Promoted, string, error) {
	var s settings.Settings
	if err := settings.Load(&s, &s, tuneYAML, nil, nil); err != nil {
		return nil, "", err
	}
	entry, err := runs.TrialOf(r.Run, trial)
	if err != nil {
		return nil, "", err
	}
	log := &syncBuffer{}
	c := s.PromoteConfig(r.Run, runs.NewRedactor(), log)
	if c.Store, err = runs.Open(s.RunsDir); err != nil {
		return nil, "", err
	}
	c.Entry, c.Force = entry, force
	p, err := promote.Trial(context.Background(), c)
	return p, log.String(), err
}

// Rollback restores the production config the last promotion replaced,
// as `tune rollback` does, and fails t unless it succeeds.
func Rollback(t testing.TB, tuneYAML string) {
	t.Helper()
	s := load(t, tuneYAML)
	store, err := runs.Open(s.RunsDir)
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	if _, err := promote.Rollback(context.Background(), s.Backend.Config, store, s.ProductionVerifier(runs.NewRedactor(), log)); err != nil {
		t.Fatalf("rollback: %v\n%s", err, log.String())
	}
}

// load reads the settings file.
func load(t testing.TB, tuneYAML string) *settings.Settings {
	t.Helper()
	var s settings.Settings
	if err := settings.Load(&s, &s, tuneYAML, nil, nil); err != nil {
		t.Fatal(err)
	}
	return &s
}

// README returns the manual's block marked `<!-- readme-test: name -->`
// (in README.md or a page under docs/) with r's replacements.
func README(t testing.TB, name string, r *strings.Replacer) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("README: no go.mod above the test's directory")
		}
		dir = parent
	}
	pages := []string{filepath.Join(dir, "README.md")}
	err = filepath.WalkDir(filepath.Join(dir, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- readme-test: " + regexp.QuoteMeta(name) + " -->\n```[a-z]*\n(.*?)```\n")
	var found []string
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			found = append(found, string(m[1]))
		}
	}
	if len(found) != 1 {
		t.Fatalf("the manual has %d blocks marked readme-test: %s, want one", len(found), name)
	}
	return r.Replace(found[0])
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
