package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// Backend kinds (setting backend.kind).
const (
	kindEmbedded = "embedded"
	kindProcess  = "process"
	kindHTTP     = "http"
)

// newFactory builds the backend kind the settings name; corpus is the
// embedded engine's default corpus. Errors are the user's (exit 2).
func (a *app) newFactory(s *settings, corpus string) (backend.Factory, error) {
	f, err := a.factory(s, corpus)
	if err != nil && s.src != nil {
		err = s.src.place(err)
	}
	return f, err
}

func (a *app) factory(s *settings, corpus string) (backend.Factory, error) {
	b := s.Backend
	switch b.Kind {
	case kindWeaviate:
		return a.weaviateFactory(s, corpus)
	case kindProcess, kindHTTP:
		search, err := searchOptions(b, a.secrets)
		if err != nil {
			return nil, err
		}
		if err := a.queryVectors(b.Vectors, corpus, &search); err != nil {
			return nil, err
		}
		return external.New(external.Options{
			Kind: b.Kind, Template: b.Template, Config: b.Config, Command: b.Command, Restart: b.Restart,
			StartTimeout: b.StartTimeout, StopTimeout: b.StopTimeout, Settle: b.Settle, Search: search,
		})
	}
	o, err := a.embeddedOptions(s)
	if err != nil {
		return nil, err
	}
	if corpus != "" {
		// The engine runs in the run directory: a path relative to the
		// working directory would not find the corpus there.
		if corpus, err = filepath.Abs(corpus); err != nil {
			return nil, err
		}
	}
	o.ConfigFile, o.Engine, o.Corpus, o.CacheDir = b.Config, b.Engine, corpus, userCachePath("engine")
	f, err := embedded.New(o)
	if err != nil {
		return nil, err
	}
	if env := f.SecretEnv(); env != "" {
		a.secrets.Add(os.Getenv(env)) // the variable a setting (dense.api_key_env) names
	}
	return f, nil
}

// embeddedOptions are the embedded kind's options every command shares:
// the tune executable, the timeouts, the redacting log.
func (a *app) embeddedOptions(s *settings) (embedded.Options, error) {
	exe, err := os.Executable()
	if err != nil {
		return embedded.Options{}, fmt.Errorf("embedded backend: find the tune executable: %w", err)
	}
	return embedded.Options{
		Exe: exe, StartTimeout: s.Backend.StartTimeout, StopTimeout: s.Backend.StopTimeout, Settle: s.Backend.Settle,
		Redact: a.secrets.Writer,
	}, nil
}

// checkTrials checks every trial's config, listing every problem at once.
func checkTrials(f backend.Factory, trials []experiments.TrialSpec) error {
	var problems []string
	for _, t := range trials {
		if err := f.Check(t.Params); err != nil {
			// Name where the trial is defined (file:line:col and its
			// block), so the parameter to fix can be found.
			where := ""
			if t.Pos != "" {
				where = t.Pos + ": "
			}
			if t.Origin != "" {
				where += t.Origin + ".params: "
			}
			problems = append(problems, fmt.Sprintf("%strial %q: %v", where, t.Name, err))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
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
	case kindWeaviate:
		return append(out, b.weaviateProblems()...)
	default:
		add("kind", "must be embedded, process, http or weaviate (got %q)", b.Kind)
		return out
	}
	if b.Template == "" {
		add("template", "required: the config file template (Go text/template; values are escaped for YAML or JSON)")
	} else if _, err := render.FormatOf(b.Template); err != nil && b.Kind == kindProcess {
		add("template", "%v", err)
	}
	return append(out, b.serviceProblems()...)
}

// serviceProblems lists what is wrong with a process or http backend's
// health URL and search request and response mapping.
func (b backendSettings) serviceProblems() []string {
	var out []string
	add := func(field, format string, args ...any) {
		out = append(out, "backend."+field+": "+fmt.Sprintf(format, args...))
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

// searchOptions builds the request/response half, reading header values
// from the environment.
func searchOptions(b backendSettings, secrets *runs.Redactor) (httpbackend.SearchOptions, error) {
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
			return httpbackend.SearchOptions{}, fmt.Errorf("backend.search.headers_env.%s: environment variable %s is not set", h, env)
		}
		headers[h] = v
		secrets.AddHeader(v) // a header value (an auth token) is never written, nor its credential
	}
	return httpbackend.SearchOptions{
		URL: q.URL, Method: strings.ToUpper(q.Method), Body: q.Body, ContentType: q.ContentType, Headers: headers,
		HealthURL: b.HealthURL,
		Response: httpbackend.Response{
			Hits: q.Hits, ID: q.ID, ChunkID: q.ChunkID, Score: q.Score, Routing: q.Routing, Candidates: q.Candidates,
			CandidateID: q.CandidateID, CandidateDocID: q.CandidateDocID, CandidateScore: q.CandidateScore,
		},
	}, nil
}
