package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/internal/userfile"
)

// Grades of the default 0-3 judgment scale: 0 irrelevant, 1 weak, 2
// partial (mostly relevant), 3 high (fully relevant). Other scales are
// configured with GradeScale (see grades.go).
const (
	GradeIrrelevant = 0
	GradeWeak       = 1
	GradePartial    = 2
	GradeHigh       = 3
)

// Golden-set formats accepted by LoadOptions.Format.
const (
	FormatNative = "native" // one JSON or YAML file of queries with inline judgments
	FormatTREC   = "trec"   // a topics file (TSV or JSONL) plus qrels in LoadOptions.Judgments
	FormatBEIR   = "beir"   // a folder with queries.jsonl and qrels/<split>.tsv
)

// DefaultBEIRSplit is the qrels split read from a BEIR folder when none is given.
const DefaultBEIRSplit = "test"

// GoldenSet is a judged query set in the common model, whatever its format.
type GoldenSet struct {
	Queries    []Query
	Categories []string  // the declared categories, or else the distinct ones used, sorted
	Source     string    // the path it was loaded from
	Hash       string    // hex sha256 of the input bytes, all files in load order
	Part       string    // "dev" or "test" for a half made by Split, else ""
	Warnings   []Problem // problems that do not stop a load, such as a very long excerpt
	// Scale is the grade scale the judgments were read on (DefaultScale
	// unless LoadOptions.Grades or the data say otherwise).
	Scale Scale

	raw []byte // the input's bytes when it is one file (see Raw)
}

// Raw returns the bytes a set loaded from one file was read and hashed
// from (Hash is their sha256), and false for a set read from several files
// or built in memory. A run's snapshot copies them: the file may have
// changed since it was loaded.
func (gs *GoldenSet) Raw() ([]byte, bool) { return gs.raw, gs.raw != nil }

// Query is one judged query.
type Query struct {
	ID              string
	Text            string
	Language        string
	Category        string
	Difficulty      string
	ExpectedRouting string // "search", "no_results" or any label a backend reports
	Notes           string
	// Meta is the query's free metadata (native "meta", and any field of
	// the query the format does not define): kept as decoded, never
	// interpreted.
	Meta      map[string]any
	Judgments []Judgment
	Pos       string // where the query is defined: file:line:col
	// Awaiting is the native "awaiting_judgments": the query may have no
	// judgments yet (a label store will give them); it is loaded and left
	// unscored until it has some.
	Awaiting bool

	path   string   // field path for problems, e.g. queries[3]
	broken bool     // decoding it reported errors
	extra  []string // fields kept in Meta that the format does not define
}

// Judgment grades one document or passage for a query. Exactly one of DocID,
// Substring and Pattern is set.
type Judgment struct {
	DocID     string // a document id
	Substring string // a verbatim excerpt of the corpus, matched ignoring case and whitespace
	Pattern   string // a regular expression that must match a whole document id
	Grade     int    // 0..Scale.Max of its golden set
	Pos       string // where the judgment is defined: file:line:col
	// Source is where the judgment came from (native "judgment_source",
	// one of JudgmentSources); "" when the file does not say (manual).
	Source string
	// Scope, when set, limits a passage_substring or doc_id_pattern
	// judgment to the documents carrying its fields (native book_slug and
	// chapter_number, of the query or the passage).
	Scope Scope

	label      string // the relevance label it was given, "" for an integer
	gradePos   string // where its grade is written, for problems ("": Pos)
	gradeField string // the grade's field path, for problems
}

// JudgmentSources are the values of a native judgment's
// "judgment_source": written by hand in the file (manual, the default), a
// person's label (human), an LLM judge's (llm), a qrels file's (file),
// derived from clicks (implicit) or bootstrapped from another system's
// results (bootstrapped).
var JudgmentSources = []string{"manual", "human", "llm", "file", "implicit", "bootstrapped"}

// SourceCounts returns the number of judgments of gs by judgment source
// (those without one counted as manual).
func (gs *GoldenSet) SourceCounts() map[string]int {
	out := map[string]int{}
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			src := j.Source
			if src == "" {
				src = "manual"
			}
			out[src]++
		}
	}
	return out
}

// NumJudgments returns the number of judgments over all queries of gs.
func (gs *GoldenSet) NumJudgments() int {
	n := 0
	for _, q := range gs.Queries {
		n += len(q.Judgments)
	}
	return n
}

// HighestGrade is the highest grade any judgment of gs gives on its scale
// (0 when none does).
func (gs *GoldenSet) HighestGrade() int {
	top := 0
	for _, q := range gs.Queries {
		for _, j := range q.Judgments {
			top = max(top, j.Grade)
		}
	}
	return top
}

// Query returns the query with the given id, or nil.
func (gs *GoldenSet) Query(id string) *Query {
	for i := range gs.Queries {
		if gs.Queries[i].ID == id {
			return &gs.Queries[i]
		}
	}
	return nil
}

// LoadOptions says how to read a golden set. The zero value detects the
// format from the path.
type LoadOptions struct {
	// Format is FormatNative, FormatTREC, FormatBEIR or "" to detect: a
	// folder is BEIR, .json/.yaml/.yml is native, anything else is a
	// topics file (TREC).
	Format string
	// Judgments is a separate graded judgments file, JSONL
	// ({query_id, doc_id|passage_substring|doc_id_pattern, grade}) or TREC
	// qrels, told apart by their first character. Required for TREC topics;
	// optional beside a native file, whose inline judgments it extends.
	Judgments string
	// Split is the BEIR qrels split (qrels/<Split>.tsv); DefaultBEIRSplit if empty.
	Split string
	// Grades is the grade scale: its map is applied to every grade as it
	// is read; unset fields come from the data (see GradeScale).
	Grades GradeScale
	// Limits bound what the set may hold (zero fields: the defaults).
	Limits Limits
}

// Limits bound a golden set, so that a wrong path (a device, a log file,
// a corpus) is refused at once, naming the limit, instead of exhausting
// memory. A zero field takes its default.
type Limits struct {
	// MaxBytes bounds each file of the set (DefaultMaxBytes; setting
	// dataset.max_bytes).
	MaxBytes int64
	// MaxLineBytes bounds a line of a line-based file (JSONL, TSV, qrels)
	// and any query's text (DefaultMaxLineBytes; dataset.max_line_bytes).
	MaxLineBytes int
	// MaxQueries bounds the queries of the set (DefaultMaxQueries;
	// dataset.max_queries).
	MaxQueries int
}

// The default limits of a golden set and the ranges the settings take.
const (
	DefaultMaxBytes     = 64 << 20 // 64 MiB
	DefaultMaxLineBytes = 1 << 20  // 1 MiB
	DefaultMaxQueries   = 100_000
	MinMaxBytes         = 1024    // the least dataset.max_bytes and max_line_bytes
	MaxMaxBytes         = 4 << 30 // dataset.max_bytes: 1 KiB .. 4 GiB
	MaxMaxLineBytes     = 64 << 20
	MaxMaxQueries       = 10_000_000
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes == 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxLineBytes == 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxQueries == 0 {
		l.MaxQueries = DefaultMaxQueries
	}
	return l
}

// LoadGoldenSet reads and validates the golden set at path. Invalid input
// comes back as Problems listing every defect at once.
func LoadGoldenSet(path string, opts LoadOptions) (*GoldenSet, error) {
	if err := userfile.Check(path); err != nil {
		return nil, fmt.Errorf("load golden set: %w", err)
	}
	format, err := detectFormat(path, opts.Format)
	if err != nil {
		return nil, err
	}
	in := &inputs{limits: opts.Limits.WithDefaults()}
	l := &problemList{}
	var gs *GoldenSet
	switch format {
	case FormatBEIR:
		if opts.Judgments != "" {
			return nil, fmt.Errorf("load golden set %q: a BEIR folder carries its own qrels; judgments file %q not allowed", path, opts.Judgments)
		}
		gs, err = loadBEIR(path, opts.Split, in, l)
	case FormatTREC:
		if opts.Judgments == "" {
			return nil, fmt.Errorf("load golden set %q: TREC topics need a judgments file (qrels or JSONL)", path)
		}
		gs, err = loadTopicsSet(path, in, l)
	default:
		gs, err = loadNativeSet(path, in, l)
	}
	if err != nil {
		return nil, err
	}
	if gs != nil && opts.Judgments != "" {
		if err := mergeJudgmentsFile(gs, opts.Judgments, format == FormatTREC, in, l); err != nil {
			return nil, err
		}
	}
	if gs != nil {
		applyScale(gs, opts.Grades, l)
	}
	checkIDs(gs, l)
	if format != FormatBEIR {
		validateSet(gs, l)
	}
	checkSize(gs, path, in.limits, l)
	if err := l.err(); err != nil {
		return nil, err
	}
	return finish(gs, path, in, l), nil
}

// finish fills the derived fields of a loaded, valid set.
func finish(gs *GoldenSet, path string, in *inputs, l *problemList) *GoldenSet {
	if len(gs.Categories) == 0 {
		gs.Categories = usedCategories(gs.Queries)
	}
	gs.Source = path
	gs.Hash = in.hash()
	if len(in.data) == 1 {
		gs.raw = in.data[0]
	}
	sortProblems(l.warns)
	gs.Warnings = l.warns
	return gs
}

func detectFormat(path, format string) (string, error) {
	switch format {
	case FormatNative, FormatTREC, FormatBEIR:
		return format, nil
	case "":
	default:
		return "", fmt.Errorf("load golden set %q: unknown format %q (expected native, trec or beir)", path, format)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("load golden set: %w", err)
	}
	if fi.IsDir() {
		return FormatBEIR, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".yaml", ".yml":
		return FormatNative, nil
	}
	return FormatTREC, nil
}

// inputs reads the files of one load, within its limits, and hashes
// their bytes in order.
type inputs struct {
	data   [][]byte
	limits Limits
}

func (in *inputs) read(path string) ([]byte, error) {
	b, err := userfile.Read(path, userfile.Limit{Bytes: in.limits.MaxBytes, Setting: "dataset.max_bytes"})
	if err != nil {
		return nil, fmt.Errorf("load golden set: %w", err)
	}
	in.data = append(in.data, b)
	if pos, ok := firstInvalidUTF8(b); !ok {
		return nil, Problems{{Pos: fmt.Sprintf("%s:%s", path, pos), Msg: fmt.Sprintf("not valid UTF-8 (byte 0x%02x): the file must be UTF-8 text", b[pos.off])}}
	}
	return bytes.TrimPrefix(b, utf8BOM), nil
}

// readLines is read for a line-based file (JSONL, TSV, qrels): a line
// longer than the limit is refused at its line, before it is parsed.
func (in *inputs) readLines(path string) ([]byte, error) {
	b, err := in.read(path)
	if err != nil {
		return nil, err
	}
	for line, rest := 1, b; len(rest) > 0; line++ {
		n := bytes.IndexByte(rest, '\n')
		if n < 0 {
			n = len(rest)
		}
		if n > in.limits.MaxLineBytes {
			return nil, Problems{{Pos: fmt.Sprintf("%s:%d", path, line), Msg: fmt.Sprintf("a line of %d bytes, more than %d (set dataset.max_line_bytes to raise it)", n, in.limits.MaxLineBytes)}}
		}
		rest = rest[min(n+1, len(rest)):]
	}
	return b, nil
}

// checkSize refuses a set (loaded from path) without a query, one of more
// queries than limits allow, and query texts longer than a line may be.
func checkSize(gs *GoldenSet, path string, limits Limits, l *problemList) {
	if gs == nil {
		return
	}
	switch n := len(gs.Queries); {
	case n == 0 && len(l.errs) == 0:
		l.errorf(path, "queries", "the golden set holds no query: nothing could be scored")
	case n > limits.MaxQueries:
		l.errorf(path, "queries", "%d queries, more than %d (set dataset.max_queries to raise it)", n, limits.MaxQueries)
	}
	for _, q := range gs.Queries {
		if len(q.Text) > limits.MaxLineBytes {
			l.errorf(q.Pos, join(q.path, "query"), "a query text of %d bytes, more than %d (set dataset.max_line_bytes to raise it)", len(q.Text), limits.MaxLineBytes)
		}
	}
}

// utf8BOM is the UTF-8 byte-order mark. Every input of a golden set (JSON,
// YAML, JSONL topics and judgments, TREC qrels, BEIR files) and every
// corpus, qrels and run file may start with one; it is skipped. Anywhere
// else it is an ordinary character.
var utf8BOM = []byte("\ufeff")

// bytePos is the line and column (in characters, from 1) of a byte offset.
type bytePos struct{ off, line, col int }

func (p bytePos) String() string { return fmt.Sprintf("%d:%d", p.line, p.col) }

// firstInvalidUTF8 returns the position of the first byte of b that is not
// part of valid UTF-8, and false; or true when b is valid.
func firstInvalidUTF8(b []byte) (bytePos, bool) {
	if utf8.Valid(b) {
		return bytePos{}, true
	}
	p := bytePos{line: 1, col: 1}
	for p.off < len(b) {
		r, w := utf8.DecodeRune(b[p.off:])
		if r == utf8.RuneError && w <= 1 {
			return p, false
		}
		p.off += w
		p.col++
		if r == '\n' {
			p.line, p.col = p.line+1, 1
		}
	}
	return p, true
}

func (in *inputs) hash() string {
	h := sha256.New()
	for _, b := range in.data {
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func usedCategories(qs []Query) []string {
	return distinct(qs, func(q Query) string { return q.Category })
}

// distinct lists the values of attr the queries state, sorted ("" left
// out).
func distinct(qs []Query, attr func(Query) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		if v := attr(q); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
