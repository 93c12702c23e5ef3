package main

import (
	"strings"

	"github.com/fusiontune/fusiontune/internal/secrets"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
	"github.com/fusiontune/fusiontune/tuner/promote"
)

// addEnvSecrets registers the values of environment variables whose names
// look secret (KEY, TOKEN, SECRET, PASSWORD, AUTH), except those naming a
// place (…_FILE, …_PATH, …_DIR, …_SOCK: SSH_AUTH_SOCK is no secret, and
// redacting a path would garble unrelated output).
// Secrets come only from the environment; settings name the variable
// (api_key_env), never the value.
func addEnvSecrets(redactor *runs.Redactor, environ []string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && secrets.IsKey(name) && !secrets.IsPlace(name) {
			redactor.Add(value)
		}
	}
}

// openStore opens the runs directory with redaction on.
func (a *app) openStore(dir string) (*runs.Store, error) {
	s, err := runs.Open(dir)
	if err != nil {
		return nil, err
	}
	s.Redact = a.secrets
	s.Derive = tuner.NewDeriver()
	return s, nil
}

// warnUnfinished warns on stderr of an interrupted promotion into the
// settings' production config (promote.WarnUnfinished).
func (a *app) warnUnfinished(s *settings, store *runs.Store) {
	promote.WarnUnfinished(a.stderr, s.Backend.Config, store)
}
