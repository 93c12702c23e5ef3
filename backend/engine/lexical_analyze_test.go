package engine

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/fusiontune/fusiontune/backend/corpus"
)

// TestTermAnalyzerMatchesAnalyze: a build worker's memoized analysis
// gives every block of chunks the postings the English analyzer's own
// Analyze gives (title, blank line, text): terms by first use, lengths,
// term counts, across blocks sharing one memo and segments stemming alike
// ("Runs", "running"): possessives, case, stop words, stems, numbers,
// Unicode and CJK.
func TestTermAnalyzerMatchesAnalyze(t *testing.T) {
	demo, err := os.ReadFile("../../experiments/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"The Runner's shoes: RUNNING, runs & ran; the runners' race.",
		"John’s café costs $3.50 (3,50 €) in 2024 — e-mail me at a.b@c.de",
		"İstanbul ΣΊΣΥΦΟΣ σίσυφος Ünïcode école ﬁnance Ⅻ ٣٤",
		"日本語のテキストと中文文本 mixed with English words",
		"", "   \n\t ", "the and of a", "don't won't it's U.S.A. 3.14 1,000,000 foo_bar",
		"repeat repeat repeat Repeat REPEAT repeated repeating",
	}
	texts = append(texts, strings.Split(string(demo), "\n")...)
	chunks := make([]corpus.Chunk, len(texts))
	titles := make([]string, len(texts))
	for i, s := range texts {
		chunks[i] = corpus.Chunk{Text: s}
		if i%3 == 0 {
			titles[i] = "Title's " + strings.ToUpper(texts[(i+1)%len(texts)])
		}
	}
	src := chunkTexts{chunks: chunks, titles: titles}
	a := newAnalyzer()
	ta, err := newTermAnalyzer(a)
	if err != nil {
		t.Fatal(err)
	}
	const block = 7 // several blocks through one worker's memo
	for lo := 0; lo < len(texts); lo += block {
		hi := min(lo+block, len(texts))
		got := ta.analyzeBlock(src, lo, hi)
		want := analyzeBlockWithAnalyze(a, src, lo, hi)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chunks %d-%d: memoized analysis\n%+v\nAnalyze\n%+v", lo, hi-1, got, want)
		}
	}
}

// analyzeBlockWithAnalyze is blockPostings from a.Analyze's token stream of
// each text: the block's terms by first use, per chunk its token count and
// its terms by first use with their counts.
func analyzeBlockWithAnalyze(a analysis.Analyzer, src chunkTexts, lo, hi int) *blockPostings {
	bp := &blockPostings{}
	local := map[string]uint32{}
	for i := lo; i < hi; i++ {
		toks := a.Analyze(src.AppendText(nil, i))
		bp.lens = append(bp.lens, uint32(len(toks)))
		tf := map[uint32]uint32{}
		var order []uint32
		for _, tok := range toks {
			id, ok := local[string(tok.Term)]
			if !ok {
				id = uint32(len(bp.terms))
				local[string(tok.Term)] = id
				bp.terms = append(bp.terms, string(tok.Term))
			}
			if tf[id] == 0 {
				order = append(order, id)
			}
			tf[id]++
		}
		bp.nterm = append(bp.nterm, uint32(len(order)))
		for _, id := range order {
			bp.tids = append(bp.tids, id)
			bp.tfs = append(bp.tfs, tf[id])
		}
	}
	return bp
}
