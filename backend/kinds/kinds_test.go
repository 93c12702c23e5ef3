package kinds_test

import (
	"os"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/embedded"
	"github.com/fusiontune/fusiontune/backend/external"
	"github.com/fusiontune/fusiontune/backend/kinds"
)

// TestNew: each kind name builds its factory from plain options; an
// unknown kind is refused; the embedded kind hands the secret its config
// names to Secret.
func TestNew(t *testing.T) {
	t.Setenv("KINDS_TEST_KEY", "sk-secret")
	var secrets []string
	for _, tc := range []struct {
		name, wantErr string
		o             kinds.Options
		want          any
	}{
		{name: "unknown", o: kinds.Options{Kind: "grpc"}, wantErr: `backend.kind: unknown kind "grpc"`},
		{name: "embedded", o: kinds.Options{Kind: kinds.Embedded, Embedded: embedded.Options{
			Engine: map[string]any{"dense": map[string]any{"model": "openai:m", "base_url": "http://127.0.0.1:1/v1", "api_key_env": "KINDS_TEST_KEY"}},
			Corpus: "corpus.jsonl", CacheDir: t.TempDir(), Exe: "tune",
		}, Secret: func(v ...string) { secrets = append(secrets, v...) }, Environ: os.Environ()}, want: &embedded.Factory{}},
		{name: "lancedb without sidecar", o: kinds.Options{Kind: kinds.LanceDB}, wantErr: "backend.lancedb: sidecar: required"},
		{name: "process without template", o: kinds.Options{Kind: kinds.Process, External: external.Options{Command: []string{"./server"}}}, wantErr: "template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := kinds.New(tc.o)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f.(*embedded.Factory); !ok {
				t.Fatalf("factory %T, want %T", f, tc.want)
			}
		})
	}
	if len(secrets) != 1 || secrets[0] != "sk-secret" {
		t.Errorf("secrets = %q, want the embedding key", secrets)
	}
}
