package main

import (
	"os"
	"strings"

	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner"
)

// secrets scrubs the values of secret environment variables (API keys,
// tokens) from everything tune writes: stdout, stderr, the backend's log
// and every run file. Secrets come only from the environment; settings
// name the variable (api_key_env), never the value.
var secrets = runs.NewRedactor()

// addEnvSecrets registers the values of environment variables whose names
// look secret (KEY, TOKEN, SECRET, PASSWORD, AUTH), except those naming a
// place (…_FILE, …_PATH, …_DIR, …_SOCK: SSH_AUTH_SOCK is no secret, and
// redacting a path would garble unrelated output).
func addEnvSecrets(environ []string) {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !isSecretKey(name) {
			continue
		}
		place := false
		for _, suffix := range []string{"_FILE", "_PATH", "_DIR", "_SOCK"} {
			place = place || strings.HasSuffix(strings.ToUpper(name), suffix)
		}
		if !place {
			secrets.Add(value)
		}
	}
}

// addSecretEnv registers the value of the environment variable name (a
// setting such as dense.api_key_env names it).
func addSecretEnv(name string) {
	if name != "" {
		secrets.Add(os.Getenv(name))
	}
}

// openStore opens the runs directory with redaction on.
func openStore(dir string) (*runs.Store, error) {
	s, err := runs.Open(dir)
	if err != nil {
		return nil, err
	}
	s.Redact = secrets
	s.Derive = tuner.NewDeriver()
	return s, nil
}
