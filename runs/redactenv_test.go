package runs_test

import (
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/runs"
)

// TestAddEnv: secret-looking variables are redacted, places (…_SOCK,
// …_FILE), variable names (…_ENV's value) and short values are not.
func TestAddEnv(t *testing.T) {
	secrets := runs.NewRedactor()
	secrets.AddEnv([]string{
		"OPENAI_API_KEY=sk-abcdef123456", "SEARCH_TOKEN=tok-0987654321", "DB_PASSWORD=hunter2hunter2",
		"SSH_AUTH_SOCK=/run/agent.sock", "API_KEY_FILE=/etc/key.txt", "EMBED_KEY_ENV=OPENAI_API_KEY",
		"HOME=/root", "SHORT_KEY=abc",
	})
	in := "sk-abcdef123456 tok-0987654321 hunter2hunter2 /run/agent.sock /etc/key.txt OPENAI_API_KEY /root abc"
	want := "[redacted] [redacted] [redacted] /run/agent.sock /etc/key.txt OPENAI_API_KEY /root abc"
	if got := secrets.String(in); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var b strings.Builder
	secrets.Writer(&b).Write([]byte("key=sk-abcdef123456\n"))
	if b.String() != "key=[redacted]\n" {
		t.Errorf("writer: %q", b.String())
	}
}
