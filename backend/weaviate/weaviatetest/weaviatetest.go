package weaviatetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/weaviate"
)

// Bin returns the weaviate-server executable, or an error saying where it
// was looked for.
func Bin() (string, error) {
	if b := os.Getenv("WEAVIATE_BIN"); b != "" {
		if _, err := os.Stat(b); err != nil {
			return "", fmt.Errorf("WEAVIATE_BIN=%s: %w", b, err)
		}
		return b, nil
	}
	var looked []string
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "weaviate-server")
			looked = append(looked, p)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w (looked at WEAVIATE_BIN, %s and PATH; build it with go install github.com/weaviate/weaviate/cmd/weaviate-server@%s)",
		weaviate.ErrNoBinary, strings.Join(looked, ", "), weaviate.Version)
}

// Start starts a server with maxResults as QUERY_HYBRID_MAXIMUM_RESULTS
// (0: the default 100) and stops it and removes its data when tb ends. It
// skips tb without the binary (fails under CI=true).
func Start(tb testing.TB, maxResults int) *weaviate.Server {
	tb.Helper()
	return StartWith(tb, weaviate.ServerOptions{MaxResults: maxResults})
}

// StartWith is Start with more of the server's options (MaxResults, Env,
// Environ: this process's environment when nil); Bin, DataDir and Log are
// its own.
func StartWith(tb testing.TB, o weaviate.ServerOptions) *weaviate.Server {
	tb.Helper()
	bin, err := Bin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("weaviatetest: %v, and CI=true", err)
		}
		tb.Skipf("weaviatetest: %v", err)
	}
	dir := tb.TempDir()
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		tb.Fatal(err)
	}
	o.Bin, o.DataDir, o.Log = bin, filepath.Join(dir, "data"), log
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	s, err := weaviate.StartServer(context.Background(), o)
	if err != nil {
		_ = log.Close()
		out, _ := os.ReadFile(log.Name())
		tb.Fatalf("weaviatetest: %v\n%s", err, tail(out))
	}
	tb.Cleanup(func() {
		_ = s.Stop()
		_ = log.Close()
	})
	return s
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}
