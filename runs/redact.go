package runs

import (
	"io"
	"sort"
	"strings"
	"sync"
)

// Redacted replaces a secret in everything a run writes.
const Redacted = "[redacted]"

// MinSecretLen is the shortest value a Redactor replaces: shorter ones
// ("1", "on") would garble unrelated text and are no secret anyway.
const MinSecretLen = 6

// Redactor replaces known secret values (API keys, tokens taken from the
// environment) with Redacted. The zero value and nil redact nothing; it is
// safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	r       *strings.Replacer
}

// NewRedactor returns a Redactor for secrets.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add registers more secret values; values shorter than MinSecretLen are
// ignored.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= MinSecretLen {
			r.secrets = append(r.secrets, s)
		}
	}
	// Longest first, so a secret containing another is replaced whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	var pairs []string
	for _, s := range r.secrets {
		pairs = append(pairs, s, Redacted)
	}
	r.r = strings.NewReplacer(pairs...)
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.r == nil || len(r.secrets) == 0 {
		return s
	}
	return r.r.Replace(s)
}

// Bytes returns b with every secret replaced.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return []byte(r.String(string(b)))
}

// Writer returns a writer that redacts each Write before passing it to w.
// (A secret split across two writes is not caught; log lines and the
// tool's messages are written whole.)
func (r *Redactor) Writer(w io.Writer) io.Writer { return redactWriter{r, w} }

type redactWriter struct {
	r *Redactor
	w io.Writer
}

func (rw redactWriter) Write(p []byte) (int, error) {
	if _, err := rw.w.Write(rw.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the underlying writer (to ask it, for example, whether it
// is a terminal).
func (rw redactWriter) Unwrap() io.Writer { return rw.w }
