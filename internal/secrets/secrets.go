package secrets

import (
	"net/url"
	"strings"
)

// IsKey reports whether a setting or environment variable named k holds a
// secret value (key, token, secret, password, auth). A name ending in _env
// names an environment variable and is no secret itself.
func IsKey(k string) bool {
	k = strings.ToLower(k)
	if strings.HasSuffix(k, "_env") {
		return false // the name of an environment variable, not its value
	}
	for _, s := range []string{"key", "token", "secret", "password", "authorization", "auth"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// IsPlace reports whether an environment variable named name holds a place
// (…_FILE, …_PATH, …_DIR, …_SOCK) rather than a value: SSH_AUTH_SOCK is no
// secret, and redacting a path would garble unrelated output.
func IsPlace(name string) bool {
	name = strings.ToUpper(name)
	for _, suffix := range []string{"_FILE", "_PATH", "_DIR", "_SOCK"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// RedactKeys returns v (maps and lists as decoded from JSON or YAML) with
// every value whose key looks secret (IsKey) replaced by "[redacted]", and
// the password of every URL (postgres://user:PW@host/db) replaced by
// "[redacted]" too (RedactURL), for a run's snapshot of its settings.
func RedactKeys(v any) any {
	switch x := v.(type) {
	case string:
		return RedactURL(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if IsKey(k) {
				out[k] = "[redacted]"
				continue
			}
			out[k] = RedactKeys(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = RedactKeys(e)
		}
		return out
	}
	return v
}

// RedactURL returns s with the password of the URL it is replaced by
// "[redacted]" (the rest as written); s itself when it is no URL with a
// password.
func RedactURL(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	start := strings.Index(s, "://") + len("://")
	authority := s[start : start+strings.IndexAny(s[start:]+"/", "/?#")]
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return s
	}
	colon := strings.Index(authority[:at], ":")
	if colon < 0 {
		return s
	}
	return s[:start+colon+1] + "[redacted]" + s[start+at:]
}
