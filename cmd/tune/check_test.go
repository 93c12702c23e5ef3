package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

const (
	goldenDir = "../../experiments/testdata/golden/"
	expDir    = "../../experiments/testdata/experiments/"
)

func TestCheck(t *testing.T) {
	badErr, err := os.ReadFile(goldenDir + "dupid.bad.json.err")
	if err != nil {
		t.Fatal(err)
	}
	negErr, err := os.ReadFile(expDir + "negative-k.bad.json.err")
	if err != nil {
		t.Fatal(err)
	}
	// graded is what `tune check` says of a 0-3 golden set under the
	// default settings: its grade scale and primary score.
	graded := "  grades: 0-3 (relevant >= 1, strong >= 2, exact >= 3)\n" +
		"  primary: default composite: mean of NDCG@20, NDCG@50, ERR@10, Strong_Precision@10, Strong_Precision@20, Useful_Precision@50, Avg_Grade@10/3, Gain_Recall@20\n"
	// nolint turns the golden-set lints off, for the cases about
	// something else: the fixtures are tiny sets the lints would warn of.
	nolint := []string{"--min-judgments", "0", "--min-relevant", "0", "--min-category", "0", "--max-imbalance", "0"}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // exact
		lint   bool   // keep the lints on (defaults)
	}{
		{
			name:   "lints warn with their counts and never fail",
			args:   []string{"--min-category", "0", "--against", goldenDir + "basic.good.yaml", goldenDir + "list.good.yaml"},
			lint:   true,
			stdout: "ok " + goldenDir + "list.good.yaml (2 queries, 3 judgments)\n" + graded,
			stderr: "warning: " + goldenDir + "list.good.yaml:6:26: queries[0].expected_passages[0].passage_substring: excerpt has 2 words; 10-40 keep it unambiguous and robust to re-chunking\n" +
				"warning: lint: 1 of 2 queries have fewer than 2 judgments: \"a2\" at " + goldenDir + "list.good.yaml:10:3 (1)\n" +
				"warning: lint: 2 of 2 queries have fewer than 2 relevant judgments (grade >= 1): \"a1\" at " + goldenDir + "list.good.yaml:2:3 (1), \"a2\" at " + goldenDir + "list.good.yaml:10:3 (1)\n" +
				"warning: lint: 3 query ids of " + goldenDir + "basic.good.yaml are gone: \"q1\" (" + goldenDir + "basic.good.yaml:4:5), \"q2\" (" + goldenDir + "basic.good.yaml:20:5), \"q3\" (" + goldenDir + "basic.good.yaml:27:5)\n",
		},
		{
			name: "good files",
			args: []string{goldenDir + "basic.good.json", goldenDir + "basic.good.yaml", goldenDir + "beir.good"},
			stdout: "ok " + goldenDir + "basic.good.json (3 queries, 4 judgments)\n" + graded + "ok " + goldenDir + "basic.good.yaml (3 queries, 4 judgments)\n" + graded +
				"ok " + goldenDir + "beir.good (2 queries, 3 judgments)\n" + graded,
		},
		{
			name:   "warnings do not fail",
			args:   []string{goldenDir + "list.good.yaml"},
			stdout: "ok " + goldenDir + "list.good.yaml (2 queries, 3 judgments)\n" + graded,
			stderr: "warning: " + goldenDir + "list.good.yaml:6:26: queries[0].expected_passages[0].passage_substring: excerpt has 2 words; 10-40 keep it unambiguous and robust to re-chunking\n",
		},
		{
			name:   "a bad file among good ones",
			args:   []string{goldenDir + "basic.good.json", goldenDir + "dupid.bad.json"},
			code:   2,
			stdout: "ok " + goldenDir + "basic.good.json (3 queries, 4 judgments)\n" + graded,
			stderr: strings.ReplaceAll(string(badErr), "testdata/golden/", goldenDir) + "tune: check: 1 of 2 files have problems\n",
		},
		{
			name:   "separate judgments",
			args:   []string{"--judgments", goldenDir + "topics.good.tsv.qrels", goldenDir + "topics.good.tsv"},
			stdout: "ok " + goldenDir + "topics.good.tsv (2 queries, 4 judgments)\n" + graded,
			stderr: "warning: " + goldenDir + "topics.good.tsv: topics without judgments skipped (1): 3\n",
		},
		{
			name:   "missing file",
			args:   []string{goldenDir + "nope.json"},
			code:   2,
			stderr: "load golden set: stat " + goldenDir + "nope.json: no such file or directory\ntune: check: 1 of 1 files have problems\n",
		},
		{
			name: "a judged document missing from the corpus",
			args: []string{"--corpus", goldenDir + "corpus.jsonl", goldenDir + "basic.good.json"},
			code: 2,
			stderr: "warning: " + goldenDir + "basic.good.json:11:9: passage_substring: query \"q1\": excerpt \"Damaged items can be returned within thirty days of delivery for a full refund\" found in 2 documents (faq-returns, faq-returns-eu); all are judged\n" +
				goldenDir + "basic.good.json:12:9: doc_id: query \"q1\": document \"faq-shipping\" is not in the corpus\n" +
				goldenDir + "basic.good.json: judged documents not in the corpus: 1 (1 distinct ids, in a corpus of 4 documents); fix the ids, or set dataset.allow_missing_docs: true to score with them anyway\n" +
				"tune: check: 1 of 1 files have problems\n",
		},

		{
			name: "excerpt found nowhere",
			args: []string{"--corpus", goldenDir + "corpus.jsonl", goldenDir + "missing-excerpt.json"},
			code: 2,
			stderr: goldenDir + "missing-excerpt.json:3:5: passage_substring: query \"m1\": excerpt \"Damaged items can be exchanged within ninety days of delivery for store credit\" not found in any document\n" +
				goldenDir + "missing-excerpt.json:4:5: doc_id_pattern: query \"m1\": pattern \"kb-.*\" matches no document id\n" +
				"tune: check: 1 of 1 files have problems\n",
		},
		{
			name: "experiment files",
			args: []string{"../../experiments/round1.json", "../../experiments/study.yaml"},
			stdout: "ok ../../experiments/round1.json (experiments: 53 trials in 3 index groups)\n" + alone +
				"ok ../../experiments/study.yaml (experiments: 1 trial in 1 index group, then 24 sampled (tpe over 5 parameters, seed 42))\n" + alone,
			// round1's grid crosses every method with every normalization
			// and weight: some methods ignore some of them.
			stderr: round1Ignored("fusion.k", "combmnz") +
				round1Ignored("fusion.k", "combsum") +
				round1Ignored("fusion.k", "linear") +
				round1Ignored("fusion.normalization", "rrf") +
				round1Ignored("fusion.weights.bm25", "combmnz") +
				round1Ignored("fusion.weights.bm25", "combsum") +
				round1Ignored("fusion.weights.dense", "combmnz") +
				round1Ignored("fusion.weights.dense", "combsum"),
		},
		{
			name:   "a bad experiment file names file:line:col and field",
			args:   []string{expDir + "negative-k.bad.json"},
			code:   2,
			stderr: strings.ReplaceAll(string(negErr), "testdata/experiments/", expDir) + "tune: check: 1 of 1 files have problems\n",
		},
		{
			name: "--kind forces the golden-set parser",
			args: []string{"--kind", "golden", "../../experiments/round1.json"},
			code: 2,
			stderr: "../../experiments/round1.json:1:1: queries: required field missing\n" +
				"../../experiments/round1.json:2:3: name: unknown field \"name\" (expected one of: categories, queries)\n" +
				"../../experiments/round1.json:3:3: description: unknown field \"description\" (expected one of: categories, queries)\n" +
				"../../experiments/round1.json:4:3: seed: unknown field \"seed\" (expected one of: categories, queries)\n" +
				"../../experiments/round1.json:5:3: baseline: unknown field \"baseline\" (expected one of: categories, queries)\n" +
				"../../experiments/round1.json:17:3: experiments: unknown field \"experiments\" (expected one of: categories, queries)\n" +
				"../../experiments/round1.json:23:3: grid: unknown field \"grid\" (expected one of: categories, queries)\n" +
				"tune: check: 1 of 1 files have problems\n",
		},
		{name: "no files", args: nil, code: 2, stderr: "tune: check: no files given\n"},
		{name: "unknown kind", args: []string{"--kind", "x", "f"}, code: 2, stderr: "tune: check: unknown --kind \"x\" (expected auto or experiments, settings, golden)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"check"}, tc.args...)
			if !tc.lint {
				args = append(append([]string{"check"}, nolint...), tc.args...)
			}
			code := run(context.Background(), args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr.String())
			}
			if stdout.String() != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), tc.stdout)
			}
			if stderr.String() != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), tc.stderr)
			}
		})
	}
}

// round1Ignored is tune check's warning about a parameter of
// experiments/round1.json's grid that a method there ignores.
// alone is the line below an experiment file checked without settings.
const alone = "  checked alone: with settings (a tune.yaml here, or --config) it is checked as a sweep starts, its trials against the backend\n"

func round1Ignored(param, method string) string {
	return fmt.Sprintf("warning: ../../experiments/round1.json: %s is ignored by fusion.method %s (12 trials set it, first %q): they rank as if it were unset\n",
		param, method, "method="+method+",normalization=min_max,w=bm25:0.3/dense:0.7,depth=20")
}
