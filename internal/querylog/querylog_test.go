package querylog

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/bad.golden")

// TestReadGood: every field of both event types is read; blank lines and
// unknown fields are ignored; a click's position comes from its search.
func TestReadGood(t *testing.T) {
	log, err := Read([]string{"testdata/good.jsonl"}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Searches) != 2 || len(log.Feedback) != 2 || log.Skipped != 0 {
		t.Fatalf("searches %d feedback %d skipped %d, want 2 2 0", len(log.Searches), len(log.Feedback), log.Skipped)
	}
	s := log.Searches[0]
	if s.Query != "return a damaged item" || s.Category != "howto" || s.K != 3 || len(s.Results) != 2 ||
		s.Results[0].Ranks["dense"] != 2 || s.LatencyMS != 1.5 || s.Config != "abc" || s.Pos != "testdata/good.jsonl:1" {
		t.Errorf("search = %+v", s)
	}
	if c := log.Feedback[0]; c.Action != ActionClick || c.DocID != "faq-shipping" || c.Position != 2 || c.Pos != "testdata/good.jsonl:3" {
		t.Errorf("click = %+v", c)
	}
	if r := log.Feedback[1]; r.Action != ActionResearch || r.RequestID != "r2" {
		t.Errorf("research = %+v", r)
	}
}

// TestReadBad: each malformed line (testdata/cases.txt) is refused naming
// file:line and the field; with SkipBad it is skipped and counted and the
// good lines around it are kept. The messages are in testdata/bad.golden.
func TestReadBad(t *testing.T) {
	base, err := os.ReadFile("testdata/base.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	dir := t.TempDir()
	n := 0
	for _, line := range strings.Split(string(cases), "\n") {
		name, bad, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		path := filepath.Join(dir, name+".jsonl")
		data := append(append([]byte{}, base...), bad+"\n"+`{"type":"feedback","time":"2026-11-24T08:00:00Z","request_id":"r2","action":"research"}`+"\n"...)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read([]string{path}, ReadOptions{})
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		if !strings.Contains(msg, name+".jsonl:4: ") {
			t.Errorf("%s: %q does not name line 4", name, msg)
		}
		fmt.Fprintf(&got, "%s\t%s\n", name, msg)
		log, err := Read([]string{path}, ReadOptions{SkipBad: true})
		if err != nil {
			t.Errorf("%s with SkipBad: %v", name, err)
			continue
		}
		if log.Skipped != 1 || len(log.Bad) != 1 || len(log.Searches) != 2 || len(log.Feedback) != 2 {
			t.Errorf("%s with SkipBad: skipped %d, searches %d, feedback %d; want 1, 2, 2", name, log.Skipped, len(log.Searches), len(log.Feedback))
		}
	}
	if n < 20 {
		t.Fatalf("only %d cases read", n)
	}
	golden := "testdata/bad.golden"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("messages differ from %s:\n%s", golden, got.String())
	}
}

// TestReadLongLine: a line past MaxLineBytes is refused without being
// held whole, and with SkipBad the next line is still read.
func TestReadLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	long := `{"type":"search","time":"2026-11-24T07:00:00Z","request_id":"r1","query":"` + strings.Repeat("a", MaxLineBytes) + `"}`
	ok := `{"type":"search","time":"2026-11-24T07:00:00Z","request_id":"r2","query":"q"}`
	if err := os.WriteFile(path, []byte(long+"\n"+ok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read([]string{path}, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "long.jsonl:1: line longer than") {
		t.Fatalf("err = %v", err)
	}
	log, err := Read([]string{path}, ReadOptions{SkipBad: true})
	if err != nil || log.Skipped != 1 || len(log.Searches) != 1 || log.Searches[0].Pos != path+":2" {
		t.Fatalf("SkipBad: %v %+v", err, log)
	}
}

// TestWriterRoundTripAndRotation: events written concurrently come back
// from Read over the rotated files, oldest first, each exactly once; the
// files beyond Keep are dropped, and no file grows past RotateBytes.
func TestWriterRoundTripAndRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.jsonl")
	w, err := Open(path, Options{RotateBytes: 4 << 10, Keep: 50})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	const n = 200
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := g; i < n; i += 4 {
				id := fmt.Sprintf("r%03d", i)
				if err := w.Write(&Event{Type: TypeSearch, Time: t0.Add(time.Duration(i) * time.Second), RequestID: id, Query: "query " + id, Results: []Result{{ID: "d1", Score: 1}}}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := Files(path)
	if len(files) < 3 || files[len(files)-1] != path || files[0] != fmt.Sprintf("%s.%d", path, len(files)-1) {
		t.Fatalf("files = %v", files)
	}
	for _, f := range files {
		st, _ := os.Stat(f)
		if st.Size() > 4<<10 {
			t.Errorf("%s is %d bytes, past RotateBytes", f, st.Size())
		}
	}
	log, err := Read(files, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range log.Searches {
		seen[s.RequestID] = true
	}
	if len(log.Searches) != n || len(seen) != n {
		t.Fatalf("read %d searches (%d distinct), want %d", len(log.Searches), len(seen), n)
	}

	// Keep: 2 keeps two rotated files and drops the rest.
	path2 := filepath.Join(t.TempDir(), "q.jsonl")
	w2, err := Open(path2, Options{RotateBytes: 1 << 10, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := w2.Write(&Event{Type: TypeSearch, Time: t0, RequestID: fmt.Sprint("r", i), Query: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	w2.Close()
	if got := Files(path2); len(got) != 3 {
		t.Errorf("Keep 2: files %v, want path.2, path.1, path", got)
	}
}

// TestSampling: the sample is a function of the request id (the same on
// every run, the same for a search and its feedback) and close to the
// share asked for.
func TestSampling(t *testing.T) {
	for _, share := range []float64{0.1, 0.5, 1} {
		in := 0
		for i := 0; i < 20000; i++ {
			id := fmt.Sprintf("req-%d", i)
			a, b := Sampled(id, share), Sampled(id, share)
			if a != b {
				t.Fatalf("Sampled(%q) not deterministic", id)
			}
			if a {
				in++
			}
		}
		if got := float64(in) / 20000; got < share-0.02 || got > share+0.02 {
			t.Errorf("share %v: sampled %v", share, got)
		}
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := Open(path, Options{Sample: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	for i := 0; i < 400; i++ {
		id := fmt.Sprint("r", i)
		w.Write(&Event{Type: TypeSearch, Time: t0, RequestID: id, Query: "q", Results: []Result{{ID: "d", Score: 1}}})
		w.Write(&Event{Type: TypeFeedback, Time: t0, RequestID: id, Action: ActionClick, DocID: "d"})
	}
	w.Close()
	log, err := Read([]string{path}, ReadOptions{}) // every logged click finds its search
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Searches) != len(log.Feedback) || len(log.Searches) < 150 || len(log.Searches) > 250 {
		t.Errorf("sample 0.5 of 400: %d searches, %d clicks", len(log.Searches), len(log.Feedback))
	}
}

// TestOptionsValidate: every out-of-range option is named with its range.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{Sample: 1.5}, "sample: must be a number in (0, 1] (got 1.5)"},
		{Options{Sample: -0.1}, "sample: must be a number in (0, 1]"},
		{Options{RotateBytes: 10}, "rotate_bytes: must be in [1024, 1099511627776] (got 10)"},
		{Options{Keep: -1}, "keep: must be in [1, 1000] (got -1)"},
		{Options{Keep: 1001}, "keep: must be in [1, 1000]"},
	} {
		p := tc.opt.Validate()
		if len(p) != 1 || !strings.HasPrefix(p[0], tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opt, p, tc.want)
		}
	}
	if p := (Options{}).Validate(); len(p) != 0 {
		t.Errorf("zero options: %v", p)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x"), Options{Sample: 2}); err == nil {
		t.Error("Open accepted sample 2")
	}
}

// TestWriteRefusesMalformed: the writer never writes a line Read would
// refuse.
func TestWriteRefusesMalformed(t *testing.T) {
	w, err := Open(filepath.Join(t.TempDir(), "x.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Write(&Event{Type: TypeSearch, Time: time.Now(), RequestID: "r\n1", Query: "q"})
	if err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("err = %v", err)
	}
}
