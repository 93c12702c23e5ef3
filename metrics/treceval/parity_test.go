package treceval_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/internal/trec"
	"github.com/fusiontune/fusiontune/metrics/treceval"
	"github.com/fusiontune/fusiontune/metrics/treceval/trecevaltest"
)

// TestParity evaluates trec_eval 10.0's own test files through the library
// (cmd/tune's test does the same through the binary) and requires every
// expected line of an implemented measure to match byte for byte.
func TestParity(t *testing.T) {
	trecevaltest.Run(t, func(t *testing.T, data string, c trecevaltest.Case) string {
		var measures, files []string
		o := treceval.DefaultOptions()
		perQuery := false
		for i := 0; i < len(c.Args); i++ {
			a := c.Args[i]
			switch {
			case a == "-q":
				perQuery = true
			case a == "-c":
				o.Complete = true
			case a == "-m":
				i++
				measures = append(measures, c.Args[i])
			case strings.HasPrefix(a, "-m"):
				measures = append(measures, a[2:])
			case strings.HasPrefix(a, "-l"):
				l, err := strconv.Atoi(a[2:])
				if err != nil {
					t.Fatal(err)
				}
				o.RelevanceLevel = l
			default:
				files = append(files, filepath.Join(data, a))
			}
		}
		qrels, err := trec.ReadJudgmentsFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		run, err := trec.ReadRunFile(files[1])
		if err != nil {
			t.Fatal(err)
		}
		sel, err := treceval.Select(measures)
		if err != nil {
			t.Fatal(err)
		}
		res, err := treceval.Evaluate(qrels, run, sel, o)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := res.WriteTREC(&got, perQuery); err != nil {
			t.Fatal(err)
		}
		return got.String()
	})
}
