package judging_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fusiontune/fusiontune/tuner/dataset"

	"github.com/fusiontune/fusiontune/experiments"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/runs"
	"github.com/fusiontune/fusiontune/tuner/judging"
	"github.com/fusiontune/fusiontune/tuner/judging/judge"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm"
	"github.com/fusiontune/fusiontune/tuner/judging/judge/llm/llmtest"
	"github.com/fusiontune/fusiontune/tuner/judging/labels"
	"github.com/fusiontune/fusiontune/tuner/judging/pool"
)

// newEnv is the shipped demo's env with a SQLite label store in a temporary
// directory and the LLM judge pointed at a rule-answering server on
// 127.0.0.1 (budget: calls at most).
func newEnv(t *testing.T, calls int64) (*judging.Env, *llmtest.Server) {
	t.Helper()
	ds, err := dataset.Open(experiments.DatasetConfig{}, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	url := filepath.Join(t.TempDir(), "labels.db")
	budget := llm.Budget{Calls: calls}
	e := &judging.Env{
		Data: ds, ID: ds.DatasetID(), Batch: llm.DefaultBatch, Budget: budget,
		OpenStore: func(ctx context.Context, create bool) (*labels.Store, error) {
			if !create && labels.Absent(url) {
				return nil, nil
			}
			return labels.Open(ctx, url)
		},
		LLM: func(st *labels.Store) (*llm.Judge, error) {
			p, err := llm.Builtin(llm.PromptGraded)
			if err != nil {
				return nil, err
			}
			return llm.New(llm.Config{Dataset: ds.DatasetID(), URL: srv.URL, Model: "rule-1", Prompt: p,
				Batch: llm.DefaultBatch, Concurrency: 1, Timeout: 5 * time.Second, Retries: 0, Backoff: time.Millisecond,
				MaxDocChars: llm.DefaultMaxDocChars, Budget: budget, Store: st, Redactor: runs.NewRedactor()})
		},
	}
	return e, srv
}

// count is the number of labels ever appended to e's store.
func count(t *testing.T, e *judging.Env) int {
	t.Helper()
	r, err := judging.Labels(context.Background(), e, judging.LabelsRequest{Format: labels.FormatJSONL, All: true})
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

// TestRun: each judge, dry or not, says what it did in its own words; a
// dry run calls nothing and creates no store; a budget judges what it
// pays for and leaves the rest; a re-run judges only what is left.
func TestRun(t *testing.T) {
	const pool = "testdata/pool.jsonl"
	for _, tc := range []struct {
		name         string
		spec         string
		dry          bool
		calls        int64 // the LLM judge's budget (0: none)
		runs         int   // runs before the one checked
		requests     int64 // the server's requests after the checked run
		labels       int   // labels in the store after
		out, log     []string
		storeCreated bool
	}{
		{name: "file dry run", spec: "file:testdata/file.qrels", dry: true,
			out: []string{"dry run: file:file.qrels would label 3 of the 9 pairs; nothing written\n"},
			log: []string{"pool testdata/pool.jsonl: 9 pairs, 0 already labelled by file:file.qrels, 9 to judge\n"}},
		{name: "file", spec: "file:testdata/file.qrels", labels: 3, storeCreated: true,
			out: []string{`appended 3 labels of dataset "demo" by file:file.qrels to `}},
		{name: "file re-run", spec: "file:testdata/file.qrels", runs: 1, labels: 3, storeCreated: true,
			out: []string{`appended 0 labels of dataset "demo" by file:file.qrels`},
			log: []string{"9 pairs, 3 already labelled by file:file.qrels, 6 to judge"}},
		{name: "llm dry run", spec: "llm", dry: true, calls: 2,
			out: []string{"dry run: llm:rule-1@", ": 9 pairs, 0 answered by the cache; 3 calls of up to 5 documents; tokens at most",
				"budget: calls 2, tokens unbounded: judging stops when it is spent"}},
		{name: "llm budget", spec: "llm", calls: 1, requests: 1, labels: 3, storeCreated: true,
			out: []string{`appended 3 labels of dataset "demo" by llm:rule-1@`, " (1 calls, "},
			log: []string{"note: ", "judging budget spent", "the 6 pairs left stay for another run\n"}},
		{name: "llm", spec: "llm", requests: 3, labels: 9, storeCreated: true,
			out: []string{`appended 9 labels of dataset "demo" by llm:rule-1@`, " (3 calls, "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, srv := newEnv(t, tc.calls)
			ctx := context.Background()
			req := judging.RunRequest{Pool: pool, Judge: tc.spec, DryRun: tc.dry, Log: &bytes.Buffer{}}
			for range tc.runs {
				if _, err := judging.Run(ctx, e, req); err != nil {
					t.Fatal(err)
				}
			}
			var log bytes.Buffer
			req.Log = &log
			r, err := judging.Run(ctx, e, req)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			r.WriteText(&out, &log)
			for _, want := range tc.out {
				if !strings.Contains(out.String(), want) {
					t.Errorf("out lacks %q:\n%s", want, out.String())
				}
			}
			for _, want := range tc.log {
				if !strings.Contains(log.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, log.String())
				}
			}
			if got := srv.Requests(); got != tc.requests {
				t.Errorf("requests = %d, want %d", got, tc.requests)
			}
			st, err := e.OpenStore(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			if (st != nil) != tc.storeCreated {
				t.Fatalf("store created = %v, want %v", st != nil, tc.storeCreated)
			}
			if st != nil {
				st.Close()
				if got := count(t, e); got != tc.labels {
					t.Errorf("labels = %d, want %d", got, tc.labels)
				}
			}
		})
	}
}

// TestRunRefuses: a judge spec that is neither llm nor file:PATH wraps
// judge.ErrSpec; a missing pool or qrels file is the user's error; none
// writes a label.
func TestRunRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, pool, spec string
		badSpec, input   bool
	}{
		{name: "bad spec", pool: "testdata/pool.jsonl", spec: "gpt", badSpec: true},
		{name: "missing pool", pool: "testdata/nope.jsonl", spec: "llm", input: true},
		{name: "missing qrels", pool: "testdata/pool.jsonl", spec: "file:testdata/nope.qrels", input: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEnv(t, 0)
			_, err := judging.Run(context.Background(), e, judging.RunRequest{Pool: tc.pool, Judge: tc.spec, Log: &bytes.Buffer{}})
			var ie *inputerr.Error
			if errors.Is(err, judge.ErrSpec) != tc.badSpec || errors.As(err, &ie) != tc.input {
				t.Fatalf("err = %v, want spec error %v, input error %v", err, tc.badSpec, tc.input)
			}
			if st, _ := e.OpenStore(context.Background(), false); st != nil {
				st.Close()
				if n := count(t, e); n != 0 {
					t.Errorf("%d labels written", n)
				}
			}
		})
	}
}

// TestImport: a file's labels are checked whole before any is appended:
// native labels carry their judge, other files need one, grades stay on
// the scale, queries must be the golden set's.
func TestImport(t *testing.T) {
	filled := "dataset\tquery\tdoc\tgrade\trationale\tquery_text\tdoc_title\tdoc_text\n" +
		"demo\tq001\tkb-0028\t2\t\t\t\t\ndemo\tq002\tkb-0030\t\t\t\t\t\n"
	for _, tc := range []struct {
		name, data, judge string
		labels, skipped   int
		wantErr           string
	}{
		{name: "qrels", data: "q001 0 kb-0028 2\nq002 0 kb-0030 1\n", judge: "ann", labels: 2},
		{name: "filled export", data: filled, judge: "ann", labels: 1, skipped: 1},
		{name: "native labels", data: `{"dataset":"demo","query":"q001","doc":"kb-0028","grade":1,"judge":"bob","source":"human","time":"2026-01-02T03:04:05Z"}` + "\n", labels: 1},
		{name: "native labels with a judge", data: `{"dataset":"demo","query":"q001","doc":"kb-0028","grade":1,"judge":"bob","source":"human","time":"2026-01-02T03:04:05Z"}` + "\n", judge: "ann", wantErr: "holds native labels, each with its judge: drop --judge"},
		{name: "qrels without a judge", data: "q001 0 kb-0028 2\n", judge: " ", wantErr: "--judge NAME is required for in.txt"},
		{name: "grade over the scale", data: "q001 0 kb-0028 9\nq002 0 kb-0030 1\n", judge: "ann", wantErr: "in.txt"},
		{name: "unknown query", data: "q999 0 kb-0028 1\n", judge: "ann", wantErr: "q999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newEnv(t, 0)
			r, err := judging.Import(context.Background(), e, judging.ImportRequest{Path: "in.txt", Data: []byte(tc.data), Judge: tc.judge, Source: labels.SourceHuman, Time: time.Unix(0, 0).UTC()})
			if tc.wantErr != "" {
				var ie *inputerr.Error
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want an input error naming %q", err, tc.wantErr)
				}
				if st, _ := e.OpenStore(context.Background(), false); st != nil {
					st.Close()
					if n := count(t, e); n != 0 {
						t.Errorf("%d labels appended", n)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Labels != tc.labels || r.Skipped != tc.skipped || count(t, e) != tc.labels {
				t.Errorf("appended %d (store %d), skipped %d; want %d, %d", r.Labels, count(t, e), r.Skipped, tc.labels, tc.skipped)
			}
			var out bytes.Buffer
			r.WriteText(&out)
			want := `appended ` + strconv.Itoa(tc.labels) + ` labels of dataset "demo" from in.txt to `
			if !strings.HasPrefix(out.String(), want) || strings.Contains(out.String(), "skipped") != (tc.skipped > 0) {
				t.Errorf("text = %q, want %q...", out.String(), want)
			}
		})
	}
}

// TestLabelsAndAgree: the store's labels come back as qrels (one grade a
// pair) or native JSONL, every label ever appended in JSONL only;
// agreement needs labels to compare.
func TestLabelsAndAgree(t *testing.T) {
	e, _ := newEnv(t, 0)
	ctx := context.Background()
	var ie *inputerr.Error
	if _, err := judging.Labels(ctx, e, judging.LabelsRequest{Format: labels.FormatQrels, All: true}); !errors.As(err, &ie) || err.Error() != "judge labels: --all needs --format jsonl" {
		t.Fatalf("--all with qrels: err = %v, want the input error", err)
	}
	if _, err := judging.Agree(ctx, e, "", false); err == nil || !strings.Contains(err.Error(), `judge agree: no llm labels of dataset "demo" in `) {
		t.Fatalf("agree without labels: err = %v", err)
	}
	if _, err := judging.Agree(ctx, e, "ann", false); err == nil || !strings.Contains(err.Error(), `no labels by "ann" of dataset "demo"`) {
		t.Fatalf("agree without ann's labels: err = %v", err)
	}
	if _, err := judging.Run(ctx, e, judging.RunRequest{Pool: "testdata/pool.jsonl", Judge: "llm", Log: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		req   judging.LabelsRequest
		lines int
	}{
		{"jsonl", judging.LabelsRequest{Format: labels.FormatJSONL}, 9},
		{"qrels", judging.LabelsRequest{Format: labels.FormatQrels}, 9},
		{"other judge", judging.LabelsRequest{Format: labels.FormatJSONL, Judge: "ann"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := judging.Labels(ctx, e, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Count(r.Data, []byte("\n")); got != tc.lines || r.Count != tc.lines {
				t.Errorf("%d lines, count %d, want %d", got, r.Count, tc.lines)
			}
			if !strings.HasPrefix(r.Note(), strconv.Itoa(tc.lines)+` labels of dataset "demo" in `) {
				t.Errorf("note = %q", r.Note())
			}
		})
	}
	c, err := judging.Agree(ctx, e, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Reports) == 0 {
		t.Error("agree: no report")
	}
}

// TestExport: the pool's pairs, with their texts, for people to label.
func TestExport(t *testing.T) {
	e, _ := newEnv(t, 0)
	data, n, err := judging.Export(e, "testdata/pool.jsonl", judge.FormatTSV)
	if err != nil {
		t.Fatal(err)
	}
	if n != 9 || bytes.Count(data, []byte("\n")) != 10 || !bytes.HasPrefix(data, []byte("dataset\tquery\tdoc\tgrade\t")) {
		t.Errorf("%d pairs:\n%s", n, data)
	}
	var ie *inputerr.Error
	if _, _, err := judging.Export(e, "testdata/nope.jsonl", judge.FormatTSV); !errors.As(err, &ie) {
		t.Errorf("missing pool: err = %v, want an input error", err)
	}
}

// TestWritePool: pairs go to the file or stdout; statistics go to stdout
// beside a file, to stderr beside pairs on stdout, as text or JSON; a
// file that cannot be written is the user's error.
func TestWritePool(t *testing.T) {
	p, err := pool.Build("demo", []pool.Ranking{{Source: "t1", Query: "q001", Docs: []string{"a", "b"}}, {Source: "t2", Query: "q001", Docs: []string{"b"}}}, func(q, d string) bool { return false }, 10)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, out, format string
		// where the pairs and the statistics go: "stdout", "stderr", "file"
		pairs, stats string
		input        bool
	}{
		{name: "stdout", format: "text", pairs: "stdout", stats: "stderr"},
		{name: "file", out: filepath.Join(dir, "p.jsonl"), format: "text", pairs: "file", stats: "stdout"},
		{name: "file json", out: filepath.Join(dir, "q.jsonl"), format: "json", pairs: "file", stats: "stdout"},
		{name: "no such directory", out: filepath.Join(dir, "nope", "p.jsonl"), format: "text", input: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := judging.WritePool(p, tc.out, tc.format, &stdout, &stderr)
			var ie *inputerr.Error
			if tc.input {
				if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "--out: ") {
					t.Fatalf("err = %v, want an input error about --out", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}
			if tc.out != "" {
				data, err := os.ReadFile(tc.out)
				if err != nil {
					t.Fatal(err)
				}
				got["file"] = string(data)
			}
			if n := strings.Count(got[tc.pairs], `"query":"q001"`); n != 2 {
				t.Errorf("%s holds %d pairs, want 2:\n%s", tc.pairs, n, got[tc.pairs])
			}
			if s := got[tc.stats]; s == "" || strings.Contains(s, `"doc"`) || (tc.format == "json") != strings.HasPrefix(s, "{") {
				t.Errorf("%s: statistics as %s: %q", tc.stats, tc.format, s)
			}
		})
	}
}
