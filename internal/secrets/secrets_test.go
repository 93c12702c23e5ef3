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
		"dataset":  map[string]any{"labels": "postgres://u:secretpw@db:5432/labels"},
		"judge":    map[string]any{"url": "http://user:pw123@127.0.0.1:8080/v1", "model": "m"},
		"search":   "http://user@127.0.0.1/search?q={{query}}",
		"hook":     "https://ci:p%40ss@example.com/x?u={{query}}",
	}
	want := map[string]any{
		"api_key":     "[redacted]",
		"api_key_env": "OPENAI_API_KEY",
		"backend": map[string]any{
			"engine": map[string]any{"dense": map[string]any{"token": "[redacted]", "model": "hash-64"}},
			"list":   []any{map[string]any{"password": "[redacted]", "name": "n"}, "x"},
		},
		"runs_dir": "runs",
		"dataset":  map[string]any{"labels": "postgres://u:[redacted]@db:5432/labels"},
		"judge":    map[string]any{"url": "http://user:[redacted]@127.0.0.1:8080/v1", "model": "m"},
		"search":   "http://user@127.0.0.1/search?q={{query}}",
		"hook":     "https://ci:[redacted]@example.com/x?u={{query}}",
	}
	if got := secrets.RedactKeys(in); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:secretpw@db/labels", "postgres://u:[redacted]@db/labels"},
		{"http://user@host/x", "http://user@host/x"},
		{"http://host/x?mail=a@b:c", "http://host/x?mail=a@b:c"},
		{"not a url @ all", "not a url @ all"},
		{"http://u:p@ss@host/", "http://u:[redacted]@host/"},
		{"://@", "://@"},
	} {
		if got := secrets.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
