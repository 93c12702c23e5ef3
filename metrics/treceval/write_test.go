package treceval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
)

// evalFile writes run to a file and evaluates it with the measures.
func evalFile(t *testing.T, qrels trec.Qrels, run string, measures ...string) (*treceval.Result, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(path, []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	sel, err := treceval.Select(measures)
	if err != nil {
		t.Fatal(err)
	}
	return treceval.EvaluateFile(context.Background(), qrels.Judgments(), path, sel, treceval.DefaultOptions())
}

func TestWriteFormats(t *testing.T) {
	qrels := trec.Qrels{"q1": {"d1": 1, "d2": 0}}
	res, err := evalFile(t, qrels, "q1 Q0 d2 1 3.0 mytag\nq1 Q0 d1 2 2.0 mytag\n", "runid", "recip_rank", "num_ret")
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := res.Write(&csv, "csv", true); err != nil {
		t.Fatal(err)
	}
	// d1 (relevant) ranks second: recip_rank = 1/2.
	if want := "measure,query,value\nnum_ret,q1,2\nrecip_rank,q1,0.5000\nrunid,all,mytag\nnum_ret,all,2\nrecip_rank,all,0.5000\n"; csv.String() != want {
		t.Errorf("csv:\n%s\nwant:\n%s", csv.String(), want)
	}
	var js bytes.Buffer
	if err := res.Write(&js, "json", true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		RunID   string `json:"runid"`
		Queries []struct {
			ID       string             `json:"id"`
			Measures map[string]float64 `json:"measures"`
		} `json:"queries"`
		All map[string]any `json:"all"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("bad json: %v\n%s", err, js.String())
	}
	if doc.RunID != "mytag" || len(doc.Queries) != 1 || doc.Queries[0].Measures["recip_rank"] != 0.5 ||
		doc.All["num_ret"] != float64(2) || doc.All["runid"] != "mytag" {
		t.Errorf("unexpected document: %+v", doc)
	}
	var keys []string
	for k := range doc.Queries[0].Measures {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"num_ret", "recip_rank"}) {
		t.Errorf("per-query measures %v, want [num_ret recip_rank]", keys)
	}
	if err := res.Write(&js, "xml", false); err == nil {
		t.Error("format xml: no error")
	}
}

func TestEvaluateFile(t *testing.T) {
	qrels := trec.Qrels{"q1": {"d1": 1, "d2": 0, "d4": 2}, "q2": {"x": 1}}
	tests := []struct {
		name, run string
		want      string // the TREC output, or the error's text
	}{
		{name: "grouped", run: "q1 Q0 d1 1 3.0 tag\nq1 Q0 d2 2 2.0 tag\nq1 Q0 d3 3 1.0 tag\nq9 Q0 d1 1 1 tag\n",
			want: "num_ret               \tall\t3\nmap                   \tall\t0.5000\n"},
		// q1's lines split by q9's: read whole and evaluated the same.
		{name: "not grouped", run: "q1 Q0 d1 1 3.0 tag\nq9 Q0 d1 1 1 tag\nq1 Q0 d2 2 2.0 tag\nq1 Q0 d3 3 1.0 tag\n",
			want: "num_ret               \tall\t3\nmap                   \tall\t0.5000\n"},
		{name: "bad line", run: "q1 Q0 d1 1 3.0 tag\nq1 Q0 d2 two 2.0 tag\n", want: `run:2: rank must be a plain non-negative integer (got "two")`},
		{name: "duplicate document", run: "q1 Q0 d1 1 3.0 tag\nq1 Q0 d1 2 2.0 tag\n", want: `document "d1" retrieved twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := evalFile(t, qrels, tt.run, "num_ret", "map")
			var got bytes.Buffer
			if err == nil {
				err = res.Write(&got, "trec", false)
			}
			if err != nil {
				got.WriteString(err.Error())
			}
			if !strings.Contains(got.String(), tt.want) {
				t.Errorf("got %q, want %q", got.String(), tt.want)
			}
		})
	}
	sel, _ := treceval.Select([]string{"map"})
	if _, err := treceval.EvaluateFile(context.Background(), qrels.Judgments(), filepath.Join(t.TempDir(), "nothere"), sel, treceval.DefaultOptions()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestAppendValueFloat: floats print as trec_eval's %6.4f, also where
// rounding carries, at zero's sign and beyond the finite numbers.
func TestAppendValueFloat(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), -0.00001, 0.00005, 0.00015, 0.99995, 0.123449999, 1, 12.34565, -3.5, 1e20, 5e-324,
		math.NaN(), math.Inf(1), math.Inf(-1), 1.0 / 3, 2.0 / 3} {
		want := fmt.Sprintf("%6.4f", v)
		if got := string(treceval.AppendValue(nil, treceval.Float, treceval.Value{Num: v})); got != want {
			t.Errorf("%v prints as %q, want %q", v, got, want)
		}
	}
}
