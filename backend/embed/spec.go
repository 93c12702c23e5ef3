package embed

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// DefaultAPIKeyEnv is the environment variable from which callers (cmd
// only: the library reads no environment) take Options.APIKey for
// openai:<model>.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// Defaults applied to unset (zero) Options fields.
const (
	DefaultBaseURL      = "https://api.openai.com"
	DefaultBatchSize    = 64
	DefaultMaxRetries   = 4
	DefaultRetryBackoff = 500 * time.Millisecond
	DefaultMaxBackoff   = 20 * time.Second
	DefaultTimeout      = 60 * time.Second
	DefaultSeed         = 1
	// MaxDim bounds <dim> in lsa-<dim> and hash-<dim>.
	MaxDim = 8192
)

// Options configure New. Zero fields take the defaults above; fields that
// do not concern the chosen embedder are ignored.
type Options struct {
	// BaseURL is the root of the OpenAI-compatible server (openai); the
	// request goes to BaseURL + "/v1/embeddings". Default DefaultBaseURL.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <key>" when not empty
	// (openai). The caller reads it from DefaultAPIKeyEnv.
	APIKey string
	// BatchSize is the number of texts per request (openai).
	BatchSize int
	// MaxRetries is how many times a request is retried after a 429, a
	// 408, a 5xx or a network error (openai); negative means never.
	MaxRetries int
	// RetryBackoff is the wait before the first retry, doubling per retry
	// up to MaxBackoff; a Retry-After header (seconds or a date) takes
	// precedence, capped at MaxBackoff (openai).
	RetryBackoff time.Duration
	// MaxBackoff caps one wait between retries (openai).
	MaxBackoff time.Duration
	// HTTPClient sends the requests (openai); default: a client with
	// DefaultTimeout.
	HTTPClient *http.Client
	// Dim is the expected vector length (openai); 0 learns it from the
	// first response, after which Dim() reports it.
	Dim int
	// Seed seeds the Gaussian test matrix of the randomized SVD (lsa).
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	switch {
	case o.MaxRetries == 0:
		o.MaxRetries = DefaultMaxRetries
	case o.MaxRetries < 0:
		o.MaxRetries = 0
	}
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	return o
}

// specForms lists the valid spec forms for error messages.
const specForms = "lsa-<dim>, hash-<dim>, openai:<model> or file:<path>"

// New builds the embedder named by spec: "lsa-<dim>", "hash-<dim>" (dim
// from 1 to MaxDim), "openai:<model>" or "file:<path>". file:<path> reads
// and checks the whole file now. An lsa embedder must be fitted (Fitter)
// before use.
func New(spec string, opts Options) (Embedder, error) {
	opts = opts.withDefaults()
	switch {
	case strings.HasPrefix(spec, "lsa-"):
		dim, err := parseDim(spec, "lsa-")
		if err != nil {
			return nil, err
		}
		return NewLSA(dim, opts.Seed), nil
	case strings.HasPrefix(spec, "hash-"):
		dim, err := parseDim(spec, "hash-")
		if err != nil {
			return nil, err
		}
		return NewHash(dim), nil
	case strings.HasPrefix(spec, "openai:"):
		model := strings.TrimPrefix(spec, "openai:")
		if model == "" {
			return nil, fmt.Errorf("embed: %q: missing model name (want openai:<model>)", spec)
		}
		return newOpenAI(model, opts)
	case strings.HasPrefix(spec, "file:"):
		path := strings.TrimPrefix(spec, "file:")
		if path == "" {
			return nil, fmt.Errorf("embed: %q: missing path (want file:<path>)", spec)
		}
		return LoadFile(path)
	}
	return nil, fmt.Errorf("embed: unknown embedder %q (want %s)", spec, specForms)
}

func parseDim(spec, prefix string) (int, error) {
	s := strings.TrimPrefix(spec, prefix)
	dim, ok := plainnum.Int(s)
	if !ok || dim < 1 || dim > MaxDim {
		return 0, fmt.Errorf("embed: %q: dimension must be an integer from 1 to %d (got %q)", spec, MaxDim, s)
	}
	return dim, nil
}
