package secrets

import "strings"

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
