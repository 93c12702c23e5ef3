package runs

import (
	"strings"

	"github.com/fusiontune/fusiontune/internal/secrets"
)

// AddEnv registers the values of environment variables (KEY=VALUE
// entries, as os.Environ gives them) whose names look secret (KEY, TOKEN,
// SECRET, PASSWORD, AUTH), except those naming a place (…_FILE, …_PATH,
// …_DIR, …_SOCK: SSH_AUTH_SOCK is no secret, and redacting a path would
// garble unrelated output). Secrets come only from the environment;
// settings name the variable (api_key_env), never the value.
func (r *Redactor) AddEnv(environ []string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && secrets.IsKey(name) && !secrets.IsPlace(name) {
			r.Add(value)
		}
	}
}
