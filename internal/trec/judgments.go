package trec

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Judgment is one graded document of a query.
type Judgment struct {
	DocNo string
	Rel   int
}

// Judgments holds qrels compactly, for evaluators that look at one query at
// a time: query id -> that query's judgments, sorted by document id. It
// holds what Qrels holds in less than half the memory: the slices share a
// few large blocks, and so do the document ids.
type Judgments map[string][]Judgment

// NumJudged returns the number of judgments in j.
func (j Judgments) NumJudged() int {
	n := 0
	for _, docs := range j {
		n += len(docs)
	}
	return n
}

// Qrels returns j as Qrels.
func (j Judgments) Qrels() Qrels {
	q := make(Qrels, len(j))
	for qid, docs := range j {
		m := make(map[string]int, len(docs))
		for _, d := range docs {
			m[d.DocNo] = d.Rel
		}
		q[qid] = m
	}
	return q
}

// Judgments returns q as Judgments.
func (q Qrels) Judgments() Judgments {
	j := make(Judgments, len(q))
	for qid, docs := range q {
		s := make([]Judgment, 0, len(docs))
		for d, rel := range docs {
			s = append(s, Judgment{DocNo: d, Rel: rel})
		}
		slices.SortFunc(s, func(a, b Judgment) int { return strings.Compare(a.DocNo, b.DocNo) })
		j[qid] = s
	}
	return j
}

// ReadJudgments parses qrels as ReadQrels does, with the same errors, into
// the compact form.
func ReadJudgments(r io.Reader, file string) (Judgments, error) {
	b := judgmentsBuilder{file: file, j: Judgments{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	var f [5][]byte
	line := 0
	first, beir := true, false
	for sc.Scan() {
		line++
		n := fields(trimBOM(sc.Bytes(), line), f[:])
		if n == 0 {
			continue
		}
		if first {
			first = false
			if n == 3 && string(f[0]) == "query-id" && string(f[1]) == "corpus-id" && string(f[2]) == "score" {
				beir = true
				continue
			}
		}
		qid, doc, rel, err := judgment(&f, n, beir, sc.Bytes())
		if err != nil {
			if err := b.flush(); err != nil { // a document judged twice above comes first
				return nil, err
			}
			return nil, fmt.Errorf("%s:%d: %w", file, line, err)
		}
		if err := b.add(qid, doc, rel, line); err != nil {
			return nil, err
		}
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, line+1, err)
	}
	if len(b.j) == 0 {
		return nil, fmt.Errorf("%s: no judgments: the file holds no qrels line \"qid iter docno rel\"", file)
	}
	return b.j, nil
}

// ReadJudgmentsFile opens path and parses it with ReadJudgments.
func ReadJudgmentsFile(path string) (Judgments, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read qrels: %w", err)
	}
	defer f.Close()
	return ReadJudgments(f, path)
}

// judgmentsBuilder collects the lines of one block of contiguous lines of
// a query, and at the block's end checks them for documents judged twice
// and files them, sorted, into j.
type judgmentsBuilder struct {
	file  string
	j     Judgments
	qid   string         // the query of cur
	cur   []lineJudgment // the block, in file order
	ids   []byte         // document ids are interned here (intern)
	slab  []Judgment     // queries' slices are cut from shared slabs
	merge []Judgment
}

// lineJudgment is a judgment and its line.
type lineJudgment struct {
	Judgment
	line int
}

func (b *judgmentsBuilder) add(qid, doc []byte, rel, line int) error {
	if string(qid) != b.qid {
		if err := b.flush(); err != nil {
			return err
		}
		b.qid = string(qid)
	}
	b.cur = append(b.cur, lineJudgment{Judgment{intern(&b.ids, doc), rel}, line})
	return nil
}

// flush files the block in cur under its query, or returns the error of
// its first line (in file order) that judges a document judged above.
func (b *judgmentsBuilder) flush() error {
	cur := b.cur
	if len(cur) == 0 {
		return nil
	}
	b.cur = cur[:0]
	slices.SortFunc(cur, func(x, y lineJudgment) int {
		if c := strings.Compare(x.DocNo, y.DocNo); c != 0 {
			return c
		}
		return cmp.Compare(x.line, y.line)
	})
	prev := b.j[b.qid]
	dup := -1 // index in cur of the first line judging a document again
	for i := range cur {
		again := i > 0 && cur[i].DocNo == cur[i-1].DocNo
		if !again && len(prev) > 0 {
			_, again = slices.BinarySearchFunc(prev, cur[i].DocNo, func(j Judgment, doc string) int { return strings.Compare(j.DocNo, doc) })
		}
		if again && (dup < 0 || cur[i].line < cur[dup].line) {
			dup = i
		}
	}
	if dup >= 0 {
		return fmt.Errorf("%s:%d: document %q judged twice for query %q", b.file, cur[dup].line, cur[dup].DocNo, b.qid)
	}
	b.merge = b.merge[:0]
	i := 0
	for _, c := range cur { // prev and cur are sorted: merge them
		for i < len(prev) && prev[i].DocNo < c.DocNo {
			b.merge = append(b.merge, prev[i])
			i++
		}
		b.merge = append(b.merge, c.Judgment)
	}
	b.merge = append(b.merge, prev[i:]...)
	b.j[b.qid] = b.alloc(b.merge)
	return nil
}

// alloc returns an exactly sized copy of s, cut from a shared slab when s
// is small, so that thousands of queries cost a few allocations.
func (b *judgmentsBuilder) alloc(s []Judgment) []Judgment {
	const slabSize = 8 * 1024
	n := len(s)
	if n > slabSize/4 {
		return slices.Clone(s)
	}
	if len(b.slab) < n {
		b.slab = make([]Judgment, slabSize)
	}
	dst := b.slab[:n:n]
	copy(dst, s)
	b.slab = b.slab[n:]
	return dst
}
