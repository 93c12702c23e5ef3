package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/segment"

	"github.com/fusiontune/fusiontune/backend/corpus"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// Analyzer is the bleve analyzer of the lexical index: Unicode tokens,
// possessive removal, lower case, English stop words, Porter stemming. It
// keys the index cache. bleve is used for analysis only: the inverted
// index and its BM25 scoring are the engine's own (see lexical).
const Analyzer = en.AnalyzerName

// indexFormat names the on-disk format of the bm25 index; it keys the
// index cache, so a cache written in another format is never read.
const indexFormat = "ftidx-v1"

// indexFile is the index's one file inside its cache directory.
const indexFile = "bm25.idx"

// indexMagic opens indexFile; the version follows it.
const indexMagic = "fusiontune-bm25\x00"

// indexVersion is the version of indexFile's layout.
const indexVersion = 1

// analyzeBlock is the number of chunks a build worker analyzes at a time.
const analyzeBlock = 512

// newAnalyzer returns bleve's English analyzer, built from bleve's
// registry (as an index mapping builds it) without importing bleve's index
// packages, whose initialization every `tune` process would pay for.
func newAnalyzer() analysis.Analyzer {
	a, err := registry.NewCache().AnalyzerNamed(Analyzer)
	if err != nil {
		panic(fmt.Sprintf("bleve analyzer %q: %v", Analyzer, err)) // registered by package en
	}
	return a
}

// lexical is the BM25 retriever: an in-memory inverted index over the
// chunks' analyzed title and text, scored exactly as bleve v2.5.7 scores a
// match query over one field of a single-segment scorch index (the index
// the engine used before; TestLexicalMatchesBleve proves the equality).
type lexical struct {
	analyzer analysis.Analyzer
	terms    map[string]uint32 // term -> term number
	offs     []uint64          // term number -> its postings: docs[offs[t]:offs[t+1]]
	docs     []uint32          // postings: chunk index, increasing within a term
	tfs      []uint32          // postings: term frequency
	lens     []uint32          // chunk index -> analyzed length (tokens)
	// Scoring constants for the engine's k1 and b (see score).
	k1     float64
	avgLen float64   // bleve: ceil(distinct terms / chunks)
	denom  []float64 // chunk index -> k1*(1-b+b*fieldLength/avgLen)
	accs   sync.Pool // *accumulator
}

// accumulator is a search's per-chunk score sums, reused between searches.
type accumulator struct {
	sum     []float64
	matched []uint32
	touched []uint32
	hits    []scored
}

// buildLexical analyzes the chunks' texts (src) on up to two workers,
// merges their postings in chunk order and writes the index to dir through
// a temporary directory renamed into place once complete, so a cancelled
// or failed build leaves nothing behind.
func buildLexical(ctx context.Context, dir string, src chunkTexts, bm BM25Config) (*lexical, error) {
	l, err := analyzeChunks(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := l.write(filepath.Join(tmp, indexFile)); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bm25 index: %w", err)
	}
	// Put the new directory in place. Another build of this index
	// (another process starting on the same cache: the same key, so the
	// same bytes) may have put its own there since openLexical found none;
	// a whole one stays, as good as ours. A directory openLexical refuses
	// (a damaged index) is replaced.
	for attempt := 1; ; attempt++ {
		err := os.Rename(tmp, dir)
		if err == nil {
			break
		}
		if _, openErr := openLexical(dir, len(l.lens), bm); openErr == nil {
			break
		}
		if attempt == 3 {
			return nil, fmt.Errorf("bm25 index: %w", err)
		}
		os.RemoveAll(dir)
	}
	l.prepare(bm)
	return l, nil
}

// blockPostings is one analyzed block of chunks: its local terms, in order
// of first use, and per chunk its length and (local term, tf) pairs.
type blockPostings struct {
	terms []string
	lens  []uint32
	nterm []uint32 // chunk -> number of its distinct terms
	tids  []uint32 // local term numbers, chunk after chunk
	tfs   []uint32
}

// termAnalyzer is one build worker's analysis: the segments of bleve's
// unicode tokenizer (what its Tokenize keeps: segments of a type other
// than None), each distinct segment passed once through the analyzer's
// token filters (possessive, lower case, stop words, Porter stemming) and
// the outcome memoized. Those filters map each token by its bytes alone,
// so a text gives exactly the terms a.Analyze gives, without a token
// stream or a stemming per occurrence (TestTermAnalyzerMatchesAnalyze).
type termAnalyzer struct {
	filters []analysis.TokenFilter
	memo    map[string]termSpan // segment -> its terms in ids
	ids     []int32             // worker term ids of memoized segments
	terms   []string            // worker term id -> term
	termID  map[string]int32    // term -> worker term id (segments "Runs" and "running" share "run")
	// Per block: a worker term's local number is local[id] when
	// stamp[id] == block (blocks count from 1).
	local, stamp []uint32
	block        uint32
	tf           []uint32 // local term -> count in the current text
	order        []uint32 // the current text's local terms, by first use
	buf          []byte   // the current text
}

// termSpan is a memoized segment's terms: ids[off : off+n].
type termSpan struct{ off, n int32 }

// newTermAnalyzer returns a worker's analysis with a's token filters; a
// must be the engine's analyzer (a *analysis.DefaultAnalyzer without
// character filters).
func newTermAnalyzer(a analysis.Analyzer) (*termAnalyzer, error) {
	da, ok := a.(*analysis.DefaultAnalyzer)
	if !ok || len(da.CharFilters) > 0 {
		return nil, fmt.Errorf("analyzer %q is not a tokenizer and token filters", Analyzer)
	}
	if _, ok := da.Tokenizer.(*unicode.UnicodeTokenizer); !ok {
		return nil, fmt.Errorf("analyzer %q does not use the unicode tokenizer", Analyzer)
	}
	return &termAnalyzer{filters: da.TokenFilters, memo: map[string]termSpan{}, termID: map[string]int32{}}, nil
}

// segment returns the memoized terms of one tokenizer segment.
func (ta *termAnalyzer) segment(seg []byte) []int32 {
	sp, ok := ta.memo[string(seg)]
	if !ok {
		stream := analysis.TokenStream{{Term: slices.Clone(seg), Start: 0, End: len(seg), Position: 1}}
		for _, f := range ta.filters {
			stream = f.Filter(stream)
		}
		sp = termSpan{off: int32(len(ta.ids)), n: int32(len(stream))}
		for _, t := range stream {
			id, ok := ta.termID[string(t.Term)]
			if !ok {
				id = int32(len(ta.terms))
				ta.termID[string(t.Term)] = id
				ta.terms = append(ta.terms, string(t.Term))
				ta.local = append(ta.local, 0)
				ta.stamp = append(ta.stamp, 0)
			}
			ta.ids = append(ta.ids, id)
		}
		ta.memo[string(seg)] = sp
	}
	return ta.ids[sp.off : sp.off+sp.n]
}

// analyzeBlock analyzes chunks [lo, hi) of src.
func (ta *termAnalyzer) analyzeBlock(src chunkTexts, lo, hi int) *blockPostings {
	n := hi - lo
	bp := &blockPostings{lens: make([]uint32, n), nterm: make([]uint32, n)}
	ta.block++
	for i := range n {
		ta.buf = src.AppendText(ta.buf[:0], lo+i)
		ta.order = ta.order[:0]
		length := uint32(0)
		seg := segment.NewWordSegmenterDirect(ta.buf)
		for seg.Segment() {
			if seg.Type() == segment.None {
				continue
			}
			for _, id := range ta.segment(seg.Bytes()) {
				length++
				if ta.stamp[id] != ta.block {
					ta.stamp[id], ta.local[id] = ta.block, uint32(len(bp.terms))
					bp.terms = append(bp.terms, ta.terms[id])
					ta.tf = append(ta.tf, 0)
				}
				lid := ta.local[id]
				if ta.tf[lid] == 0 {
					ta.order = append(ta.order, lid)
				}
				ta.tf[lid]++
			}
		}
		bp.lens[i] = length
		bp.nterm[i] = uint32(len(ta.order))
		for _, lid := range ta.order {
			bp.tids = append(bp.tids, lid)
			bp.tfs = append(bp.tfs, ta.tf[lid])
			ta.tf[lid] = 0
		}
	}
	ta.tf = ta.tf[:0]
	return bp
}

// analyzeChunks builds the index in memory: blocks of chunks analyzed on
// up to two workers, merged in chunk order (term numbers by first use), so
// every build gives the same index.
func analyzeChunks(ctx context.Context, src chunkTexts) (*lexical, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := newAnalyzer()
	nchunks := src.Len()
	nblocks := (nchunks + analyzeBlock - 1) / analyzeBlock
	results := make([]chan *blockPostings, nblocks)
	for i := range results {
		results[i] = make(chan *blockPostings, 1)
	}
	workers := min(2, runtime.GOMAXPROCS(0), max(nblocks, 1))
	tas := make([]*termAnalyzer, workers)
	for w := range tas {
		var err error
		if tas[w], err = newTermAnalyzer(a); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	next := make(chan int)
	var wg sync.WaitGroup
	// On return the feeder stops and the workers finish their blocks.
	defer func() { cancel(); wg.Wait() }()
	for _, ta := range tas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				results[b] <- ta.analyzeBlock(src, b*analyzeBlock, min((b+1)*analyzeBlock, nchunks))
			}
		}()
	}
	go func() {
		defer close(next)
		for b := range nblocks {
			select {
			case next <- b:
			case <-ctx.Done():
				return
			}
		}
	}()

	l := &lexical{analyzer: a, terms: map[string]uint32{}, lens: make([]uint32, 0, nchunks)}
	// Each block's term numbers become the index's (numbered by first use
	// in chunk order), then a counting sort by term over the blocks in
	// order lays out the postings, chunks increasing within a term.
	blocks := make([]*blockPostings, nblocks)
	var gid []uint32
	for b := range nblocks {
		var bp *blockPostings
		select {
		case bp = <-results[b]:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		gid = gid[:0]
		for _, t := range bp.terms {
			id, ok := l.terms[t]
			if !ok {
				id = uint32(len(l.terms))
				l.terms[t] = id
			}
			gid = append(gid, id)
		}
		for k, t := range bp.tids {
			bp.tids[k] = gid[t]
		}
		bp.terms = nil
		l.lens = append(l.lens, bp.lens...)
		blocks[b] = bp
	}
	nt := len(l.terms)
	l.offs = make([]uint64, nt+1)
	for _, bp := range blocks {
		for _, t := range bp.tids {
			l.offs[t+1]++
		}
	}
	for t := range nt {
		l.offs[t+1] += l.offs[t]
	}
	fill := slices.Clone(l.offs[:nt])
	l.docs = make([]uint32, l.offs[nt])
	l.tfs = make([]uint32, l.offs[nt])
	for b, bp := range blocks {
		k := 0
		for i, n := range bp.nterm {
			doc := uint32(b*analyzeBlock + i)
			for range n {
				t := bp.tids[k]
				p := fill[t]
				fill[t]++
				l.docs[p], l.tfs[p] = doc, bp.tfs[k]
				k++
			}
		}
		blocks[b] = nil
	}
	return l, nil
}

// write stores the index at path: magic, version, counts, chunk lengths,
// terms (in term-number order), postings offsets, chunk indexes and term
// frequencies, all little-endian, then a CRC-32 of everything before it.
func (l *lexical) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	terms := make([]string, len(l.terms))
	for t, id := range l.terms {
		terms[id] = t
	}
	w.WriteString(indexMagic)
	hdr := []uint64{indexVersion, uint64(len(l.lens)), uint64(len(terms)), uint64(len(l.docs))}
	writeLE(w, hdr, 8, binary.LittleEndian.PutUint64)
	writeLE(w, l.lens, 4, binary.LittleEndian.PutUint32)
	var buf [binary.MaxVarintLen64]byte
	for _, t := range terms {
		w.Write(buf[:binary.PutUvarint(buf[:], uint64(len(t)))])
		w.WriteString(t)
	}
	writeLE(w, l.offs, 8, binary.LittleEndian.PutUint64)
	writeLE(w, l.docs, 4, binary.LittleEndian.PutUint32)
	if err := writeLE(w, l.tfs, 4, binary.LittleEndian.PutUint32); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := binary.Write(f, binary.LittleEndian, h.Sum32()); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// writeLE writes xs to w, each as size bytes put by put, through a small
// buffer: the bytes binary.Write writes, without its copy of them all.
func writeLE[T any](w io.Writer, xs []T, size int, put func([]byte, T)) error {
	buf := make([]byte, 0, 64<<10)
	for _, x := range xs {
		if len(buf)+size > cap(buf) {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = buf[:len(buf)+size]
		put(buf[len(buf)-size:], x)
	}
	_, err := w.Write(buf)
	return err
}

// errIndexFormat marks an index file that is not one this build writes.
var errIndexFormat = errors.New("not a fusiontune bm25 index of this version")

// openLexical loads an index written by buildLexical for n chunks.
func openLexical(dir string, n int, bm BM25Config) (*lexical, error) {
	path := filepath.Join(dir, indexFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := decodeLexical(data)
	if err != nil {
		return nil, fmt.Errorf("bm25 index: %s: %w", path, err)
	}
	if len(l.lens) != n {
		return nil, fmt.Errorf("bm25 index: %s holds %d chunks, want %d", path, len(l.lens), n)
	}
	l.prepare(bm)
	return l, nil
}

func decodeLexical(data []byte) (*lexical, error) {
	const hdr = len(indexMagic) + 4*8
	if len(data) < hdr+4 || string(data[:len(indexMagic)]) != indexMagic {
		return nil, errIndexFormat
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errors.New("checksum mismatch (truncated or damaged)")
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(data[len(indexMagic)+8*i:]) }
	if u(0) != indexVersion {
		return nil, fmt.Errorf("%w (version %d)", errIndexFormat, u(0))
	}
	nd, nt, np := u(1), u(2), u(3)
	p := body[hdr:]
	short := errors.New("truncated")
	u32s := func(n uint64) ([]uint32, error) {
		if uint64(len(p)) < 4*n {
			return nil, short
		}
		out := make([]uint32, n)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(p[4*i:])
		}
		p = p[4*n:]
		return out, nil
	}
	l := &lexical{analyzer: newAnalyzer(), terms: make(map[string]uint32, nt)}
	var err error
	if l.lens, err = u32s(nd); err != nil {
		return nil, err
	}
	for t := range nt {
		k, m := binary.Uvarint(p)
		if m <= 0 || uint64(len(p)-m) < k {
			return nil, short
		}
		l.terms[string(p[m:m+int(k)])] = uint32(t)
		p = p[m+int(k):]
	}
	if uint64(len(p)) < 8*(nt+1) {
		return nil, short
	}
	l.offs = make([]uint64, nt+1)
	for i := range l.offs {
		l.offs[i] = binary.LittleEndian.Uint64(p[8*i:])
	}
	p = p[8*(nt+1):]
	if l.offs[nt] != np {
		return nil, errors.New("postings count mismatch")
	}
	if l.docs, err = u32s(np); err != nil {
		return nil, err
	}
	if l.tfs, err = u32s(np); err != nil {
		return nil, err
	}
	if len(p) != 0 {
		return nil, errors.New("trailing bytes")
	}
	for t := range nt {
		if l.offs[t] > l.offs[t+1] {
			return nil, errors.New("postings offsets out of order")
		}
	}
	for _, d := range l.docs {
		if uint64(d) >= nd {
			return nil, errors.New("posting past the last chunk")
		}
	}
	return l, nil
}

// prepare sets the scoring constants for k1 and b as bleve v2.5.7 derives
// them: the average length is ceil(the field's distinct terms / chunks)
// (its FieldCardinality), and a chunk's length is the one its norm
// encodes, float32(1/sqrt(tokens)), decoded as 1/(norm*norm).
func (l *lexical) prepare(bm BM25Config) {
	k1, b := bm.K1, bm.B
	l.k1 = k1
	n := len(l.lens)
	if n > 0 {
		l.avgLen = math.Ceil(float64(len(l.terms)) / float64(n))
	}
	l.denom = make([]float64, n)
	for d, ln := range l.lens {
		norm := float64(float32(1.0 / math.Sqrt(float64(ln))))
		fieldLength := 1 / (norm * norm)
		l.denom[d] = k1 * (1 - b + (b * fieldLength / l.avgLen))
	}
	l.accs.New = func() any {
		return &accumulator{sum: make([]float64, n), matched: make([]uint32, n)}
	}
}

// chunkTexts gives what both retrievers index of each chunk (corpus.IndexText)
// on demand, so a build holds no copy of them all.
type chunkTexts struct {
	chunks []corpus.Chunk
	titles []string // per chunk: its document's title
}

// Len returns the number of chunks.
func (t chunkTexts) Len() int { return len(t.chunks) }

// AppendText appends chunk i's indexed text to dst.
func (t chunkTexts) AppendText(dst []byte, i int) []byte {
	if t.titles[i] != "" {
		dst = append(append(dst, t.titles[i]...), "\n\n"...)
	}
	return append(dst, t.chunks[i].Text...)
}

// texts returns the indexed texts of chunks lo to hi-1.
func (t chunkTexts) texts(lo, hi int) []string {
	return corpus.Texts(t.chunks[lo:hi], t.titles[lo:hi])
}

// queryTerm is one analyzed token of a query.
type queryTerm struct {
	lo, hi uint64 // postings range; empty when the term is not indexed
	idf    float64
	weight float64 // bleve's queryWeight: idf * queryNorm
}

// search returns up to depth chunk indexes and BM25 scores, best first,
// ties by the fusion tie rule (see rankedBefore). Scores are bleve's match
// query: every query token (repeats included) is a term clause; a chunk
// scores the sum of its clauses' BM25 scores, each times the clause's
// query weight, the sum times the share of clauses it matched (coord).
func (l *lexical) search(ctx context.Context, query string, depth int, chunks []corpus.Chunk) ([]scored, error) {
	if depth <= 0 {
		return []scored{}, nil
	}
	acc := l.accs.Get().(*accumulator)
	defer l.accs.Put(acc)
	defer acc.reset()
	clauses, err := l.match(ctx, query, acc)
	if err != nil {
		return nil, err
	}
	hits := acc.hits[:0]
	for _, d := range acc.touched {
		hits = append(hits, scored{idx: int(d), score: roundScore(acc.sum[d] * (float64(acc.matched[d]) / clauses))})
	}
	acc.hits = hits
	return topScored(hits, depth, chunks), nil
}

// reset clears the chunks a search touched.
func (acc *accumulator) reset() {
	for _, d := range acc.touched {
		acc.matched[d] = 0
	}
	acc.touched = acc.touched[:0]
}

// match sums the query's clause scores of every chunk matching a query
// term into acc (sum and matched, for the chunks in touched) and returns
// the number of clauses; the chunk's score is sum * (matched / clauses),
// bleve's coord factor.
func (l *lexical) match(ctx context.Context, query string, acc *accumulator) (clauses float64, err error) {
	toks := l.analyzer.Analyze([]byte(query))
	if len(toks) == 0 || l.avgLen == 0 {
		return 0, nil
	}
	qs := make([]queryTerm, len(toks))
	for i, t := range toks {
		if id, ok := l.terms[string(t.Term)]; ok {
			qs[i].lo, qs[i].hi = l.offs[id], l.offs[id+1]
		}
	}
	// bleve sums clauses in order of document frequency (a stable sort
	// for the few clauses of a query).
	sort.SliceStable(qs, func(a, b int) bool { return qs[a].hi-qs[a].lo < qs[b].hi-qs[b].lo })
	n := float64(len(l.lens))
	sumSq := 0.0
	for i := range qs {
		df := float64(qs[i].hi - qs[i].lo)
		qs[i].idf = math.Log(1 + (n-df+0.5)/(df+0.5))
		w := 1.0 * qs[i].idf
		sumSq += w * w
	}
	qnorm := 1.0 / math.Sqrt(sumSq)
	for i := range qs {
		qs[i].weight = 1.0 * qs[i].idf * qnorm
	}
	k1 := l.k1
	denom, sum, matched := l.denom, acc.sum[:len(l.denom)], acc.matched[:len(l.denom)]
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("bm25 search: %w", err)
		}
		docs := l.docs[q.lo:q.hi]
		tfs := l.tfs[q.lo:q.hi][:len(docs)]
		for p, d := range docs {
			var tf float64
			if n := tfs[p]; n < uint32(len(sqrtTF)) {
				tf = sqrtTF[n]
			} else {
				tf = math.Sqrt(float64(n))
			}
			s := q.idf * (tf * k1) / (tf + denom[d])
			if q.weight != 1.0 {
				s = s * q.weight
			}
			if matched[d] == 0 {
				acc.touched = append(acc.touched, d)
				sum[d] = s
			} else {
				sum[d] += s
			}
			matched[d]++
		}
	}
	return float64(len(qs)), nil
}

// topScored returns the depth best of hits (reordered in place), best
// first by rankedBefore, in a new slice.
func topScored(hits []scored, depth int, chunks []corpus.Chunk) []scored {
	before := func(a, b scored) int {
		if rankedBefore(chunks, a, b) {
			return -1
		}
		if rankedBefore(chunks, b, a) {
			return 1
		}
		return 0
	}
	if len(hits) > depth {
		// A min-heap of the best depth so far: its root is the worst kept.
		h := hits[:depth]
		worse := func(i, j int) bool { return rankedBefore(chunks, h[j], h[i]) }
		down := func(i int) {
			for {
				c := 2*i + 1
				if c >= depth {
					return
				}
				if c+1 < depth && worse(c+1, c) {
					c++
				}
				if !worse(c, i) {
					return
				}
				h[i], h[c] = h[c], h[i]
				i = c
			}
		}
		for i := depth/2 - 1; i >= 0; i-- {
			down(i)
		}
		for _, s := range hits[depth:] {
			if rankedBefore(chunks, s, h[0]) {
				h[0] = s
				down(0)
			}
		}
		hits = h
	}
	out := slices.Clone(hits)
	slices.SortFunc(out, before)
	return out
}

// sqrtTF[n] is math.Sqrt(n) (the same correctly rounded value) for the
// term frequencies of nearly every posting.
var sqrtTF = func() (t [64]float64) {
	for i := range t {
		t[i] = math.Sqrt(float64(i))
	}
	return t
}()

// roundScore rounds a BM25 score to 1e-9, below any meaningful difference
// and above floating-point summation noise.
func roundScore(s float64) float64 { return math.Round(s*1e9) / 1e9 }

func (l *lexical) close() error { return nil }

// scored is a chunk index with a retriever score.
type scored struct {
	idx   int
	score float64
}

// rankedBefore reports whether a ranks above b in a retriever's list: the
// higher score first; equal scores break by document id descending, then
// by chunk id descending. That is the fusion tie rule (fusion.TieRule,
// trec_eval's order of tied scores), so a run file of one retriever's
// scores evaluates in the order fusion ranked it.
func rankedBefore(chunks []corpus.Chunk, a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	ca, cb := &chunks[a.idx], &chunks[b.idx]
	if ca.DocID != cb.DocID {
		return ca.DocID > cb.DocID
	}
	return ca.ID > cb.ID
}

// candidates turns a retriever's scored chunks into the fusion candidate
// list, ranking from 1 (the floors apply at fusion: fusion.Settings).
func candidates(list []scored, chunks []corpus.Chunk) []fusion.Candidate {
	out := make([]fusion.Candidate, 0, len(list))
	for _, s := range list {
		c := chunks[s.idx]
		out = append(out, fusion.Candidate{ID: c.ID, DocID: c.DocID, Score: s.score, Rank: len(out) + 1})
	}
	return out
}
