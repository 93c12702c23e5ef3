package settings

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
	"github.com/fusiontune/fusiontune/backend/kinds"
)

// Host is what a backend's options need from the process running tune.
type Host struct {
	// Exe is the tune executable (the embedded kind runs `tune serve`).
	Exe string
	// CacheDir is the embedded engine's default index cache.
	CacheDir string
	// Redact wraps a service log so that no secret reaches it.
	Redact func(io.Writer) io.Writer
	// Secret and Header receive the secret values the options read from
	// the environment: an embedding API key, a header value (whose
	// credential is redacted too).
	Secret, Header func(...string)
	// Environ is this process's environment (os.Environ()): the services
	// the backend starts inherit it (kinds.Options.Environ).
	Environ []string
}

// Options turns the backend block into the options of its kind; corpus is
// the embedded engine's default corpus. Header values are read from the
// environment variables backend.search.headers_env names.
func (b Backend) Options(corpus string, h Host) (kinds.Options, error) {
	o := kinds.Options{Kind: b.Kind, Secret: h.Secret, Environ: h.Environ}
	switch b.Kind {
	case KindPostgres:
		p, err := b.postgresOptions(corpus, h.Secret)
		o.Postgres = p
		return o, err
	case KindWeaviate:
		w, err := b.weaviateOptions(corpus, h.Secret)
		o.Weaviate = w
		return o, err
	case KindCommand:
		o.Command = b.commandOptions()
		return o, nil
	case KindLanceDB:
		l, err := b.lancedbOptions(corpus, h.Secret)
		o.LanceDB = l
		return o, err
	case KindProcess, KindHTTP:
		search, err := b.searchOptions(h.Header)
		if err != nil {
			return o, err
		}
		if err := b.Vectors.queryVectors(corpus, h.Secret, &search); err != nil {
			return o, err
		}
		o.External = external.Options{
			Template: b.Template, Config: b.Config, Command: b.Command, Restart: b.Restart,
			StartTimeout: b.StartTimeout, StopTimeout: b.StopTimeout, Settle: b.Settle, Search: search,
		}
		return o, nil
	}
	o.Embedded = embedded.Options{
		ConfigFile: b.Config, Engine: b.Engine, Corpus: corpus, CacheDir: h.CacheDir,
		Exe: h.Exe, StartTimeout: b.StartTimeout, StopTimeout: b.StopTimeout, Settle: b.Settle, Redact: h.Redact,
	}
	return o, nil
}

// searchOptions builds the request/response half, reading header values
// from the environment.
func (b Backend) searchOptions(header func(...string)) (httpbackend.SearchOptions, error) {
	q := b.Search
	headers := map[string]string{}
	for _, h := range sortedKeys(q.HeadersEnv) {
		env := q.HeadersEnv[h]
		v, ok := os.LookupEnv(env)
		if !ok || v == "" {
			return httpbackend.SearchOptions{}, fmt.Errorf("backend.search.headers_env.%s: environment variable %s is not set", h, env)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			// Not echoed: the value is a secret.
			return httpbackend.SearchOptions{}, fmt.Errorf("backend.search.headers_env.%s: environment variable %s holds a line break or NUL, which no header value may", h, env)
		}
		headers[h] = v
		if header != nil {
			header(v) // a header value (an auth token) is never written, nor its credential
		}
	}
	return httpbackend.SearchOptions{
		URL: q.URL, Method: strings.ToUpper(q.Method), Body: q.Body, ContentType: q.ContentType, Headers: headers,
		HealthURL: b.HealthURL,
		Response: httpbackend.Response{
			Hits: q.Hits, ID: q.ID, ChunkID: q.ChunkID, Score: q.Score, Text: q.Text, Routing: q.Routing, Candidates: q.Candidates,
			CandidateID: q.CandidateID, CandidateDocID: q.CandidateDocID, CandidateScore: q.CandidateScore,
		},
	}, nil
}
