package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// VectorDatabase starts a throwaway cluster and returns the URL of a
// fresh database with the pgvector extension created, skipping tb (failing
// it under CI) when pgvector is not installed.
func VectorDatabase(tb testing.TB) string {
	tb.Helper()
	url := Start(tb).NewDatabase(tb)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("pgvector: %v (CI is set: .ci/run should have run scripts/install-pgvector.sh)", err)
		}
		tb.Skipf("pgvector not installed (scripts/install-pgvector.sh): %v", err)
	}
	return url
}
