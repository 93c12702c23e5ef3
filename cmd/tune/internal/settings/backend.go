package settings

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/kinds"
	"github.com/fusiontune/fusiontune/backend/render"
	"github.com/fusiontune/fusiontune/experiments"
)

// Backend kinds (setting backend.kind).
const (
	KindEmbedded = kinds.Embedded
	KindProcess  = kinds.Process
	KindHTTP     = kinds.HTTP
)

// Backend chooses and configures the backend.
type Backend struct {
	Kind string `mapstructure:"kind"` // embedded, process, http
	// Engine holds tune serve's config keys for the embedded backend.
	Engine map[string]any `mapstructure:"engine"`
	// Config is the production config file the backend runs on (embedded:
	// an engine YAML whose keys Engine overlays).
	Config       string        `mapstructure:"config"`
	StartTimeout time.Duration `mapstructure:"start_timeout"`
	StopTimeout  time.Duration `mapstructure:"stop_timeout"`
	Settle       time.Duration `mapstructure:"settle"`
	// Command is the process kind's service argv ("{config}" is the
	// rendered config file).
	Command []string `mapstructure:"command"`
	// Restart is the http kind's restart command argv ("{config}" is
	// backend.config).
	Restart []string `mapstructure:"restart"`
	// Template renders a trial's config file (process and http kinds).
	Template string `mapstructure:"template"`
	// HealthURL answers 2xx once the service is ready.
	HealthURL string `mapstructure:"health_url"`
	Search    Search `mapstructure:"search"`
	// Vectors gives process/http request templates the query's vector;
	// Postgres configures the postgres kind (backend_postgres.go).
	Vectors  Vectors  `mapstructure:"vectors"`
	Postgres Postgres `mapstructure:"postgres"`
	// Weaviate configures the weaviate kind (backend_weaviate.go).
	Weaviate Weaviate `mapstructure:"weaviate"`
	// LanceDB configures the lancedb kind (backend_lancedb.go).
	LanceDB LanceDB `mapstructure:"lancedb"`
	// CommandOptions configure the command kind (backend_command.go).
	CommandOptions CommandOptions `mapstructure:"command_options"`
}

// Search describes how to query a process or http backend: a request
// template and gjson paths into the JSON response.
type Search struct {
	URL         string `mapstructure:"url"`
	Method      string `mapstructure:"method"`
	Body        string `mapstructure:"body"`
	ContentType string `mapstructure:"content_type"`
	// HeadersEnv maps a header name to the environment variable that holds
	// its value: secrets never live in settings files.
	HeadersEnv     map[string]string `mapstructure:"headers_env"`
	Hits           string            `mapstructure:"hits"`
	ID             string            `mapstructure:"id"`
	ChunkID        string            `mapstructure:"chunk_id"`
	Score          string            `mapstructure:"score"`
	Text           string            `mapstructure:"text"`
	Routing        string            `mapstructure:"routing"`
	Candidates     map[string]string `mapstructure:"candidates"`
	CandidateID    string            `mapstructure:"candidate_id"`
	CandidateDocID string            `mapstructure:"candidate_doc_id"`
	CandidateScore string            `mapstructure:"candidate_score"`
}

// Validate lists what is wrong with the backend block (fields relative
// to it): the kind and the keys it needs or refuses, the service's URLs
// and search mapping, the timeouts' ranges. Files and environment
// variables are checked later, by the commands that use them.
func (b Backend) Validate() experiments.Problems {
	var out experiments.Problems
	add := adder(&out)
	b.kindProblems(add)
	r := ranges{add: add}
	r.duration("start_timeout", b.StartTimeout, maxStartTimeout, false)
	r.duration("stop_timeout", b.StopTimeout, maxStopTimeout, false)
	r.duration("settle", b.Settle, maxSettle, true)
	return out
}

func (b Backend) kindProblems(add func(field, format string, args ...any)) {
	only := func(field, kind string, set bool) {
		if set {
			add(field, "only for backend.kind %s (kind is %s)", kind, b.Kind)
		}
	}
	switch b.Kind {
	case KindPostgres:
		b.postgresProblems(add)
		return
	case KindWeaviate:
		b.weaviateProblems(add)
		return
	case KindCommand:
		b.commandProblems(add)
		return
	case KindLanceDB:
		b.lancedbProblems(add)
		return
	case KindEmbedded:
		only("command", KindProcess, len(b.Command) > 0)
		only("restart", KindHTTP, len(b.Restart) > 0)
		only("template", "process or http", b.Template != "")
		only("health_url", "process or http", b.HealthURL != "")
		only("search", "process or http", b.Search.URL != "" || b.Search.Hits != "" || b.Search.Body != "")
		return
	case KindProcess:
		only("engine", "embedded", len(b.Engine) > 0)
		only("restart", KindHTTP, len(b.Restart) > 0)
		if len(b.Command) == 0 || b.Command[0] == "" {
			add("command", `required: the service's argv, e.g. ["./search-server", "--config", "{config}"]`)
		}
	case KindHTTP:
		only("engine", "embedded", len(b.Engine) > 0)
		only("command", KindProcess, len(b.Command) > 0)
		if b.ReadOnly() {
			// Read-only: the service is only searched (tune check-quality,
			// or query-time parameters through the request templates).
			b.serviceProblems(add)
			return
		}
		if len(b.Restart) == 0 || b.Restart[0] == "" {
			add("restart", `required: the restart command's argv, e.g. ["systemctl", "restart", "search"]`)
		}
		if b.Config == "" {
			add("config", "required: the service's config file, which each trial rewrites and the sweep restores")
		} else if _, err := render.FormatOf(b.Config); err != nil {
			add("config", "%v", err)
		}
	default:
		add("kind", "must be embedded, process, http, postgres, weaviate, command or lancedb (got %q)", b.Kind)
		return
	}
	if b.Template == "" {
		add("template", "required: the config file template (Go text/template; values are escaped for YAML or JSON)")
	} else if _, err := render.FormatOf(b.Template); err != nil && b.Kind == KindProcess {
		add("template", "%v", err)
	}
	b.serviceProblems(add)
}

// ReadOnly reports whether the backend is a read-only http backend: kind
// http without config, template and restart. It is searched as it runs;
// nothing is written or restarted, and promotion is refused.
func (b Backend) ReadOnly() bool {
	return b.Kind == KindHTTP && b.Config == "" && b.Template == "" && len(b.Restart) == 0
}

// serviceProblems checks a process or http backend's health URL and
// search request and response mapping.
func (b Backend) serviceProblems(add func(field, format string, args ...any)) {
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
	for _, h := range sortedKeys(q.HeadersEnv) {
		if !headerName.MatchString(h) {
			add("search.headers_env", "%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", h)
		}
		// The value is not echoed: it may be a secret pasted by mistake.
		if !envName.MatchString(q.HeadersEnv[h]) {
			add("search.headers_env."+h, "want the name of an environment variable holding the header's value, not the value")
		}
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// headerName is an HTTP header field name: a token (RFC 9110 5.1).
var headerName = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")

func sortedKeys(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for h := range m {
		names = append(names, h)
	}
	sort.Strings(names)
	return names
}
