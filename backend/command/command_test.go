package command_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/command"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// helper is the argv prefix running this test binary as the search
// program (TestHelperProcess), in mode.
func helper(t *testing.T, mode string, args ...string) ([]string, []string) {
	t.Helper()
	return append([]string{os.Args[0], "-test.run=^TestHelperProcess$", "--"}, args...), append(os.Environ(), "COMMAND_HELPER="+mode)
}

func open(t *testing.T, o command.Options) backend.Backend {
	t.Helper()
	f, err := command.New(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Open(t.TempDir(), ioDiscard{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

func ids(hits []backend.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.DocID
	}
	return out
}

// TestArgvNoShell: the query, {k} inside an argument and a trial
// parameter arrive as single arguments, byte for byte; nothing is
// evaluated by a shell (the marker file never appears). The regex reads
// one hit per line.
func TestArgvNoShell(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "pwned")
	query := "$(touch " + marker + "); `touch " + marker + "` | a b \"c\""
	argv, env := helper(t, "echo", "{query}", "x{k}y", "{fusion.k}")
	b := open(t, command.Options{Argv: argv, Env: env, Regex: `(?m)^hit (.*)$`})
	if err := b.Apply(context.Background(), map[string]any{"fusion.k": 60}); err != nil {
		t.Fatal(err)
	}
	resp, err := b.Search(context.Background(), backend.SearchRequest{Query: query, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{query, "x5y", "60"}; !reflect.DeepEqual(ids(resp.Hits), want) {
		t.Errorf("argv = %q, want %q", ids(resp.Hits), want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the query was evaluated by a shell")
	}
	if err := b.Apply(context.Background(), map[string]any{}); err == nil || !strings.Contains(err.Error(), "placeholder {fusion.k}") {
		t.Errorf("a placeholder no parameter fills: err = %v", err)
	}
}

// TestOutput reads hits by named regex groups and by JSON paths.
func TestOutput(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o       command.Options
		mode    string
		want    []backend.Hit
		routing string
	}{
		{name: "regex groups", mode: "lines", o: command.Options{Regex: `(?m)^\d+\. (?P<id>\S+) \((?P<score>[0-9.]+)\) (?P<text>.*)$`},
			want: []backend.Hit{{DocID: "doc://a", Score: 2.5, Text: "first doc"}, {DocID: "doc://b", Score: 1, Text: "second"}}},
		{name: "regex without groups: whole match, score 1/rank", mode: "lines", o: command.Options{Regex: `doc://[a-z]+`},
			want: []backend.Hit{{DocID: "doc://a", Score: 1}, {DocID: "doc://b", Score: 0.5}}},
		{name: "json paths", mode: "json", o: command.Options{JSON: httpbackend.Response{Hits: "results", ID: "uri", Score: "score", Text: "snippet", Routing: "route"}},
			want: []backend.Hit{{DocID: "doc://a", Score: 2.5, Text: "first doc"}, {DocID: "doc://b", Score: 1, Text: "second"}}, routing: "search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Argv, tc.o.Env = helper(t, tc.mode)
			resp, err := open(t, tc.o).Search(context.Background(), backend.SearchRequest{Query: "q", K: 10})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(resp.Hits, tc.want) || resp.Routing != tc.routing {
				t.Errorf("hits %+v routing %q, want %+v %q", resp.Hits, resp.Routing, tc.want, tc.routing)
			}
		})
	}
}

// TestTimeoutAndExit: a process past its timeout is killed and the search
// fails saying so, well before the process would have ended; a non-zero
// exit fails with the end of its stderr.
func TestTimeoutAndExit(t *testing.T) {
	argv, env := helper(t, "sleep")
	b := open(t, command.Options{Argv: argv, Env: env, Regex: "x", Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := b.Search(context.Background(), backend.SearchRequest{Query: "q", K: 1})
	if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Errorf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timed-out search took %s", d)
	}
	argv, env = helper(t, "fail")
	_, err = open(t, command.Options{Argv: argv, Env: env, Regex: "x"}).Search(context.Background(), backend.SearchRequest{Query: "q", K: 1})
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "index is locked") {
		t.Errorf("err = %v, want the exit status and stderr", err)
	}
}

// TestConcurrencyBound: 8 searches at once on a backend allowing 2 never
// have more than 2 processes running (each process counts the others
// through files in a shared directory while it runs).
func TestConcurrencyBound(t *testing.T) {
	dir := t.TempDir()
	argv, env := helper(t, "count", dir)
	b := open(t, command.Options{Argv: argv, Env: env, Regex: `(?m)^running (\d+)$`, Concurrency: 2})
	var wg sync.WaitGroup
	peak := make([]int, 8)
	for i := range peak {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := b.Search(context.Background(), backend.SearchRequest{Query: strconv.Itoa(i), K: 1})
			if err != nil {
				t.Error(err)
				return
			}
			peak[i], _ = strconv.Atoi(resp.Hits[0].DocID)
		}()
	}
	wg.Wait()
	for _, p := range peak {
		if p < 1 || p > 2 {
			t.Fatalf("processes running at once: %v, want each in [1, 2]", peak)
		}
	}
}

// TestOptionsCheck lists the settings each bad option names.
func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    command.Options
		want string
	}{
		{"no argv", command.Options{Regex: "x"}, "backend.command: required"},
		{"timeout too long", command.Options{Argv: []string{"x"}, Regex: "x", Timeout: 11 * time.Minute}, "timeout: must be in (0, 10m0s]"},
		{"concurrency too high", command.Options{Argv: []string{"x"}, Regex: "x", Concurrency: 65}, "concurrency: must be in [1, 64]"},
		{"bad regex", command.Options{Argv: []string{"x"}, Regex: "("}, "regex: error parsing regexp"},
		{"no way to read hits", command.Options{Argv: []string{"x"}}, "regex: required unless stdout is JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := command.New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestHelperProcess is not a test: run by the tests above as the search
// program, it behaves as $COMMAND_HELPER says.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("COMMAND_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	var args []string
	for i, a := range os.Args {
		if a == "--" {
			args = os.Args[i+1:]
		}
	}
	switch mode {
	case "echo":
		for _, a := range args {
			fmt.Printf("hit %s\n", a)
		}
	case "lines":
		fmt.Print("Results\n1. doc://a (2.5) first doc\n2. doc://b (1) second\n")
	case "json":
		json.NewEncoder(os.Stdout).Encode(map[string]any{"route": "search", "results": []map[string]any{
			{"uri": "doc://a", "score": 2.5, "snippet": "first doc"}, {"uri": "doc://b", "score": 1, "snippet": "second"}}})
	case "sleep":
		time.Sleep(20 * time.Second)
	case "fail":
		fmt.Fprintln(os.Stderr, "search: index is locked")
		os.Exit(3)
	case "count":
		dir := args[0]
		me := filepath.Join(dir, strconv.Itoa(os.Getpid()))
		os.WriteFile(me, nil, 0o644)
		peak := 0
		for i := 0; i < 20; i++ {
			entries, _ := os.ReadDir(dir)
			peak = max(peak, len(entries))
			time.Sleep(5 * time.Millisecond)
		}
		os.Remove(me)
		fmt.Printf("running %d\n", peak)
	}
	os.Exit(0)
}
