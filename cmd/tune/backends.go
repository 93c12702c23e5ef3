package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/runs"
)

// newFactory builds the backend kind the settings name; corpus is the
// embedded engine's default corpus. Errors are the user's (exit 2).
func (a *app) newFactory(s *settings, corpus string) (backend.Factory, error) {
	f, err := a.factory(s, corpus)
	if err != nil && s.Src != nil {
		err = s.Src.Place(err)
	}
	return f, err
}

func (a *app) factory(s *settings, corpus string) (backend.Factory, error) {
	b := s.Backend
	switch b.Kind {
	case kindProcess, kindHTTP:
		search, err := searchOptions(b, a.secrets)
		if err != nil {
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
