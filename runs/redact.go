package runs

import (
	"encoding/base64"
	"encoding/json"
	htmlpkg "html"
	"io"
	"net/url"
	"regexp"
	"slices"
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

// Add registers more secret values with their meaningful parts (see
// SecretParts: the credential after a known scheme word); parts shorter
// than MinSecretLen are ignored.
func (r *Redactor) Add(secrets ...string) { r.add(false, secrets) }

// AddURLPassword adds the password of a URL (postgres://USER:PW@HOST/DB),
// if it has one.
func (r *Redactor) AddURLPassword(raw string) {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			r.Add(pw)
		}
	}
}

// AddURLPasswordsIn adds the password of every URL among the strings of
// v (maps and lists as decoded from JSON or YAML: a run's settings).
func (r *Redactor) AddURLPasswordsIn(v any) {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, "://") && strings.Contains(x, "@") {
			r.AddURLPassword(x)
		}
	case map[string]any:
		for _, e := range x {
			r.AddURLPasswordsIn(e)
		}
	case []any:
		for _, e := range x {
			r.AddURLPasswordsIn(e)
		}
	}
}

// AddHeader registers header values (an Authorization header's
// "<scheme> <credential>"): like Add, but the credential after any scheme
// word is a part of its own, known scheme or not.
func (r *Redactor) AddHeader(values ...string) { r.add(true, values) }

func (r *Redactor) add(anyScheme bool, secrets []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, secret := range secrets {
		for _, part := range secretParts(secret, anyScheme) {
			if len(part) < MinSecretLen {
				continue
			}
			for _, s := range Echoes(part) {
				if !slices.Contains(r.secrets, s) {
					r.secrets = append(r.secrets, s)
				}
			}
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

// scheme is an authorization scheme word ("Bearer", "Basic", "Token",
// "ApiKey", …) followed by the credential.
var scheme = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9._-]*)\s+(\S.*?)\s*$`)

// knownSchemes are the scheme words (lower case) whose credential
// SecretParts splits off in any secret value; in a value from an
// environment variable that merely looks secret, another first word
// ("Alice Wonderland") is no scheme, and redacting the rest alone would
// garble unrelated output.
var knownSchemes = map[string]bool{
	"bearer": true, "basic": true, "token": true, "digest": true, "apikey": true, "api-key": true,
	"key": true, "oauth": true, "jwt": true, "dpop": true, "negotiate": true, "hoba": true,
	"mutual": true, "scram-sha-256": true, "scram-sha-1": true, "vapid": true, "gnap": true,
}

// SecretParts returns the parts of a secret value that must never be
// written: the value itself, trimmed, and for a value of the form
// "<scheme> <credential>" with a known scheme word ("Bearer sk-…",
// "Token …") the credential alone too, since services echo it without its
// scheme word ("invalid credentials: sk-…"). (The whole value stays a
// part: a pass phrase with a space is no scheme and credential, and none
// of it may leak.) A Basic credential is also decoded: the
// "user:password" pair and the password alone are parts too.
func SecretParts(secret string) []string { return secretParts(secret, false) }

func secretParts(secret string, anyScheme bool) []string {
	parts := []string{strings.TrimSpace(secret)}
	m := scheme.FindStringSubmatch(secret)
	if m == nil || !anyScheme && !knownSchemes[strings.ToLower(m[1])] {
		return parts
	}
	cred := m[2]
	parts = append(parts, cred)
	if strings.EqualFold(m[1], "basic") {
		if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
			parts = append(parts, string(dec))
			if _, pass, ok := strings.Cut(string(dec), ":"); ok {
				parts = append(parts, pass)
			}
		}
	}
	return parts
}

// Echoes returns the forms in which a service or a file may echo secret
// s: as it is; URL-encoded (query and path escaping, %xx in either case);
// JSON-escaped (also with "\/" for "/", and with <, >, & as \u00xx);
// HTML-escaped (also with "&#43;" for "+", as html/template writes it);
// each of these JSON-escaped once more (an echo inside an error message
// inside a JSON record); and all of them lower- and upper-cased. Every
// form is redacted.
func Echoes(s string) []string {
	lowerHex := func(v string) string {
		return percentHex.ReplaceAllStringFunc(v, strings.ToLower)
	}
	plain := []string{s}
	for _, e := range []string{url.QueryEscape(s), url.PathEscape(s)} {
		plain = append(plain, e, lowerHex(e))
	}
	for _, html := range []bool{false, true} {
		j := jsonEscape(s, html)
		plain = append(plain, j, strings.ReplaceAll(j, "/", `\/`))
	}
	h := htmlpkg.EscapeString(s)
	plain = append(plain, h, strings.ReplaceAll(h, "+", "&#43;"))
	for _, v := range plain[:len(plain):len(plain)] {
		plain = append(plain, jsonEscape(v, false), jsonEscape(v, true))
	}
	seen := map[string]bool{}
	var out []string
	for _, v := range plain {
		for _, c := range []string{v, strings.ToLower(v), strings.ToUpper(v)} {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// jsonEscape is s as a JSON string holds it, without the quotes (<, > and
// & as \u00xx with html).
func jsonEscape(s string, html bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s) // a string always encodes
	q := strings.TrimSpace(b.String())
	return q[1 : len(q)-1]
}

// percentHex is a %xx escape.
var percentHex = regexp.MustCompile(`%[0-9A-F]{2}`)

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r.empty() {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.r.Replace(s)
}

// empty reports whether r knows no secret (once it knows one, r.r is set
// for good).
func (r *Redactor) empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) == 0
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
	if rw.r.empty() { // no copy: a command's output passes through as it is
		return rw.w.Write(p)
	}
	if _, err := rw.w.Write(rw.r.Bytes(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the underlying writer (to ask it, for example, whether it
// is a terminal).
func (rw redactWriter) Unwrap() io.Writer { return rw.w }
