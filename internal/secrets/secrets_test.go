package secrets_test

import (
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/internal/secrets"
)

// TestRedactKeys: values under secret-looking keys are replaced at any
// depth, in maps and lists; names of environment variables (…_env) and
// other values are kept.
func TestRedactKeys(t *testing.T) {
	in := map[string]any{
		"api_key":     "sk-1",
		"api_key_env": "OPENAI_API_KEY",
		"backend": map[string]any{
			"engine": map[string]any{"dense": map[string]any{"token": "t", "model": "hash-64"}},
			"list":   []any{map[string]any{"password": "p", "name": "n"}, "x"},
		},
		"runs_dir": "runs",
	}
	want := map[string]any{
		"api_key":     "[redacted]",
		"api_key_env": "OPENAI_API_KEY",
		"backend": map[string]any{
			"engine": map[string]any{"dense": map[string]any{"token": "[redacted]", "model": "hash-64"}},
			"list":   []any{map[string]any{"password": "[redacted]", "name": "n"}, "x"},
		},
		"runs_dir": "runs",
	}
	if got := secrets.RedactKeys(in); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
