package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/process"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// Backend kinds (setting backend.kind).
const (
	kindEmbedded = "embedded"
	kindProcess  = "process"
	kindHTTP     = "http"
)

// backendSetup is one backend kind, prepared from the settings before any
// run directory exists: check renders every trial's config so a bad
// parameter fails first, describe is a trial's exact config for its record,
// open builds the backend with its files under runDir/backend.
type backendSetup interface {
	check(trials []experiments.TrialSpec) error
	describe(params experiments.Params) string
	open(runDir string, stderr io.Writer) (backend.Backend, error)
}

// newBackendSetup prepares the backend kind the settings name. Errors are
// the user's (exit 2).
func newBackendSetup(s *settings, ds *dataset) (backendSetup, error) {
	switch s.Backend.Kind {
	case kindProcess, kindHTTP:
		return newTemplateSetup(s)
	}
	e, err := newEmbeddedSetup(s, ds)
	if err != nil {
		return nil, err
	}
	return embeddedBackend{e}, nil
}

// embeddedBackend adapts embeddedSetup to backendSetup.
type embeddedBackend struct{ *embeddedSetup }

func (e embeddedBackend) open(runDir string, stderr io.Writer) (backend.Backend, error) {
	return e.backend(runDir, stderr)
}

// problems lists what is wrong with the backend block, each as
// "field: what was expected". Files and environment variables are checked
// later, by the commands that use them.
func (b backendSettings) problems() []string {
	var out []string
	add := func(field, format string, args ...any) {
		out = append(out, "backend."+field+": "+fmt.Sprintf(format, args...))
	}
	only := func(field, kind string, set bool) {
		if set {
			add(field, "only for backend.kind %s (kind is %s)", kind, b.Kind)
		}
	}
	switch b.Kind {
	case kindEmbedded:
		only("command", kindProcess, len(b.Command) > 0)
		only("restart", kindHTTP, len(b.Restart) > 0)
		only("template", "process or http", b.Template != "")
		only("health_url", "process or http", b.HealthURL != "")
		only("search", "process or http", b.Search.URL != "" || b.Search.Hits != "" || b.Search.Body != "")
		return out
	case kindProcess:
		only("engine", "embedded", len(b.Engine) > 0)
		only("restart", kindHTTP, len(b.Restart) > 0)
		if len(b.Command) == 0 || b.Command[0] == "" {
			add("command", `required: the service's argv, e.g. ["./search-server", "--config", "{config}"]`)
		}
	case kindHTTP:
		only("engine", "embedded", len(b.Engine) > 0)
		only("command", kindProcess, len(b.Command) > 0)
		if len(b.Restart) == 0 || b.Restart[0] == "" {
			add("restart", `required: the restart command's argv, e.g. ["systemctl", "restart", "search"]`)
		}
		if b.Config == "" {
			add("config", "required: the service's config file, which each trial rewrites and the sweep restores")
		} else if _, err := render.FormatOf(b.Config); err != nil {
			add("config", "%v", err)
		}
	default:
		add("kind", "must be embedded, process or http (got %q)", b.Kind)
		return out
	}
	if b.Template == "" {
		add("template", "required: the config file template (Go text/template; values are escaped for YAML or JSON)")
	} else if _, err := render.FormatOf(b.Template); err != nil && b.Kind == kindProcess {
		add("template", "%v", err)
	}
	checkURL := func(field, u string, tmpl bool) {
		if u == "" {
			add(field, "required: an http:// or https:// URL")
			return
		}
		if tmpl {
			u = strings.NewReplacer("{{", "", "}}", "").Replace(u)
		}
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			add(field, "want an http:// or https:// URL (got %q)", u)
		}
	}
	checkURL("health_url", b.HealthURL, false)
	q := b.Search
	checkURL("search.url", q.URL, true)
	if _, err := render.Parse("search.url", q.URL, render.URL); err != nil {
		add("search.url", "%v", err)
	}
	switch strings.ToUpper(q.Method) {
	case "", http.MethodGet, http.MethodPost, http.MethodPut:
	default:
		add("search.method", "must be GET, POST or PUT (got %q)", q.Method)
	}
	if q.Body != "" {
		if _, err := render.Parse("search.body", q.Body, render.JSON); err != nil {
			add("search.body", "%v", err)
		}
	}
	if q.Hits == "" {
		add("search.hits", `required: the JSON path of the array of hits, e.g. "hits"`)
	}
	if q.ID == "" {
		add("search.id", `required: the JSON path of a hit's document id, e.g. "doc_id"`)
	}
	names := make([]string, 0, len(q.HeadersEnv))
	for h := range q.HeadersEnv {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		// The value is not echoed: it may be a secret pasted by mistake.
		if !envName.MatchString(q.HeadersEnv[h]) {
			add("search.headers_env."+h, "want the name of an environment variable holding the header's value, not the value")
		}
	}
	return out
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// templateSetup is the process and http kinds: a config file rendered from
// the user's template, searched through a request template.
type templateSetup struct {
	s        *settings
	tmpl     *render.Template
	searcher *httpbackend.Searcher
	// config is the absolute path of backend.config ("" when unset).
	config string
}

func newTemplateSetup(s *settings) (*templateSetup, error) {
	text, err := os.ReadFile(s.Backend.Template)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	target := s.Backend.Template
	if s.Backend.Kind == kindHTTP {
		target = s.Backend.Config
	}
	f, err := render.FormatOf(target)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	tmpl, err := render.Parse(s.Backend.Template, string(text), f)
	if err != nil {
		return nil, fmt.Errorf("backend.template: %w", err)
	}
	t := &templateSetup{s: s, tmpl: tmpl}
	if s.Backend.Config != "" {
		if t.config, err = filepath.Abs(s.Backend.Config); err != nil {
			return nil, fmt.Errorf("backend.config: %w", err)
		}
	}
	if s.Backend.Kind == kindHTTP {
		if _, err := os.Stat(t.config); err != nil {
			return nil, fmt.Errorf("backend.config: the service's config file must exist (it is backed up and restored): %w", err)
		}
	}
	if t.searcher, err = newSearcher(s.Backend); err != nil {
		return nil, err
	}
	return t, nil
}

// newSearcher builds the request/response half, reading header values
// from the environment.
func newSearcher(b backendSettings) (*httpbackend.Searcher, error) {
	q := b.Search
	headers := map[string]string{}
	names := make([]string, 0, len(q.HeadersEnv))
	for h := range q.HeadersEnv {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		env := q.HeadersEnv[h]
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return nil, fmt.Errorf("backend.search.headers_env.%s: environment variable %s is not set", h, env)
		}
		headers[h] = v
		secrets.Add(v) // a header value (an auth token) is never written
	}
	s, err := httpbackend.NewSearcher(httpbackend.SearchOptions{
		URL: q.URL, Method: strings.ToUpper(q.Method), Body: q.Body, ContentType: q.ContentType, Headers: headers,
		HealthURL: b.HealthURL,
		Response: httpbackend.Response{
			Hits: q.Hits, ID: q.ID, ChunkID: q.ChunkID, Score: q.Score, Routing: q.Routing, Candidates: q.Candidates,
			CandidateID: q.CandidateID, CandidateDocID: q.CandidateDocID, CandidateScore: q.CandidateScore,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("backend.search: %w", err)
	}
	return s, nil
}

func (t *templateSetup) render(params map[string]any) ([]byte, error) { return t.tmpl.Execute(params) }

func (t *templateSetup) check(trials []experiments.TrialSpec) error {
	var problems []string
	for _, tr := range trials {
		if _, err := t.render(tr.Params); err != nil {
			problems = append(problems, fmt.Sprintf("trial %q: backend.template: %v", tr.Name, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func (t *templateSetup) describe(params experiments.Params) string {
	return describeRendered(t.render(params))
}

// renderedName is the file name a trial's config gets in the run
// directory: the template's name without .tmpl/.tpl.
func (t *templateSetup) renderedName() string {
	base := filepath.Base(t.s.Backend.Template)
	return strings.TrimSuffix(strings.TrimSuffix(base, ".tmpl"), ".tpl")
}

func (t *templateSetup) open(runDir string, stderr io.Writer) (backend.Backend, error) {
	dir := filepath.Join(runDir, "backend")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	b := t.s.Backend
	if b.Kind == kindProcess {
		log, err := os.OpenFile(filepath.Join(dir, "service.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		return process.New(process.Options{
			Command: b.Command, ConfigPath: filepath.Join(dir, t.renderedName()), Render: t.render,
			Dial:         func(string) (backend.Searcher, error) { return t.searcher, nil },
			StartTimeout: b.StartTimeout, StopTimeout: b.StopTimeout, Settle: b.Settle, Log: log,
		})
	}
	log, err := os.OpenFile(filepath.Join(dir, "restart.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	backup := filepath.Join(dir, "original-"+filepath.Base(t.config))
	fmt.Fprintf(stderr, "http backend: %s is backed up to %s and restored when the sweep ends\n", t.config, backup)
	hb, err := httpbackend.New(httpbackend.Options{
		ConfigPath: t.config, Render: t.render, BackupPath: backup, Restart: b.Restart,
		RestartTimeout: b.StartTimeout, ReadyTimeout: b.StartTimeout, Settle: b.Settle, Search: t.searcher, Log: log,
	})
	if err != nil {
		return nil, err
	}
	return restoringBackend{hb, t.config, backup, stderr}, nil
}

// restoringBackend says on stderr that Close is restoring the service's
// config (a restart can take a while, and a second Ctrl-C does not stop
// it), and where the original bytes are if the restore fails.
type restoringBackend struct {
	*httpbackend.Backend
	config, backup string
	stderr         io.Writer
}

func (r restoringBackend) Close() error {
	fmt.Fprintf(r.stderr, "http backend: restoring %s and restarting the service on it\n", r.config)
	if err := r.Backend.Close(); err != nil {
		return fmt.Errorf("%w (the original bytes are in %s)", err, r.backup)
	}
	return nil
}

// recordTimings writes where the sweep's wall time went into the manifest
// and prints it.
func recordTimings(run *runs.Run, b *tuner.TimedBackend, recording, analysis, wall time.Duration, stderr io.Writer) error {
	t := b.Timings(wall)
	t.RecordSeconds = recording.Seconds()
	t.AnalysisSeconds = analysis.Seconds()
	run.Manifest.Timings = &t
	if err := run.SaveManifest(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "time: %.2fs wall = %.2fs backend start/stop + %.2fs search requests + %.3fs tuner overhead (%.2f%%; of it %.3fs durable trial records, %.3fs applying configs, %.3fs statistics, leaderboard and report after the last trial)\n",
		t.WallSeconds, t.StartStopSeconds, t.SearchSeconds, t.OverheadSeconds, 100*t.OverheadShare, t.RecordSeconds, t.ApplySeconds, t.AnalysisSeconds)
	return nil
}
