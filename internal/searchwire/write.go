package searchwire

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// AppendResponse appends r's JSON, the body of POST /search, to dst as
// encoding/json's Marshal writes it (HTML-safe string escaping, the same
// float format, the same omitted fields), without reflection. It returns
// false, and dst as it was, when r holds what it leaves to encoding/json:
// candidate lists, or a number JSON cannot hold (Marshal's error).
func AppendResponse[R ResponseShape[H, C, V, T], H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](dst []byte, r *R) ([]byte, bool) {
	resp := responseShape[H, C, V, T](*r)
	if len(resp.Candidates) > 0 || len(resp.Rerank) > 0 {
		return dst, false
	}
	start := len(dst)
	dst = append(dst, `{"hits":`...)
	dst, ok := appendHits(dst, resp.Hits)
	if !ok {
		return dst[:start], false
	}
	dst = appendRouting(dst, resp.Routing)
	if dst, ok = appendVariants(dst, resp.Variants, appendHits[H]); !ok {
		return dst[:start], false
	}
	if resp.Timings != nil {
		if dst, ok = appendTimings(dst, Timings(*resp.Timings)); !ok {
			return dst[:start], false
		}
	}
	return append(dst, '}'), true
}

// appendRouting appends the "routing" member, nothing when routing is
// empty.
func appendRouting(dst []byte, routing string) []byte {
	if routing == "" {
		return dst
	}
	dst = append(dst, `,"routing":`...)
	return appendString(dst, routing)
}

// appendVariants appends the "variants" member, nothing when there are
// none; each variant's hits are written by hits.
func appendVariants[H HitShape, V VariantShape[H]](dst []byte, variants []V, hits func([]byte, []H) ([]byte, bool)) ([]byte, bool) {
	if len(variants) == 0 {
		return dst, true
	}
	dst = append(dst, `,"variants":[`...)
	for i := range variants {
		v := variantShape[H](variants[i])
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"hits":`...)
		var ok bool
		if dst, ok = hits(dst, v.Hits); !ok {
			return dst, false
		}
		dst = appendRouting(dst, v.Routing)
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// appendTimings appends the "timings" member.
func appendTimings(dst []byte, t Timings) ([]byte, bool) {
	var ok bool
	for i, f := range [3]float64{t.LexicalMS, t.DenseMS, t.FusionMS} {
		dst = append(dst, timingKeys[i]...)
		if dst, ok = appendFloat(dst, f); !ok {
			return dst, false
		}
	}
	if t.RerankMS != 0 {
		dst = append(dst, `,"rerank_ms":`...)
		if dst, ok = appendFloat(dst, t.RerankMS); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// timingKeys precede Timings' fields in order.
var timingKeys = [3]string{`,"timings":{"lexical_ms":`, `,"dense_ms":`, `,"fusion_ms":`}

// appendHits appends hits as a JSON array of objects (null when nil).
func appendHits[H HitShape](dst []byte, hits []H) ([]byte, bool) {
	if hits == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i := range hits {
		h := Hit(hits[i])
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"doc_id":`...)
		dst = appendString(dst, h.DocID)
		if h.ChunkID != "" {
			dst = append(dst, `,"chunk_id":`...)
			dst = appendString(dst, h.ChunkID)
		}
		dst = append(dst, `,"score":`...)
		var ok bool
		if dst, ok = appendFloat(dst, h.Score); !ok {
			return dst, false
		}
		if h.Text != "" {
			dst = append(dst, `,"text":`...)
			dst = appendString(dst, h.Text)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// AppendAnswer appends the answer line of request i of a /search/batch
// body, r answered in elapsed, to dst:
//
//	{"i":0,"ms":0.41,"hits":[["doc",0.0323],["doc","chunk",0.0318]],"routing":"search",
//	 "candidates":{"bm25":[["id",12.7],["chunk","doc",11.2]],"dense":[...]},
//	 "variants":[{"hits":[...],"routing":"search"}],"timings":{"lexical_ms":0.2,"dense_ms":0.3,"fusion_ms":0.05},
//	 "rerank":{"doc":0.91,"chunk":0.12}}
//
// and a newline. A hit is [doc_id, score], or [doc_id, chunk_id, score]
// when its chunk is not the document; hits carry no text. A candidate is
// [id, score] (its document is id and its rank its 1-based position), [id,
// doc_id, score] or [id, doc_id, score, rank], the lists in name order.
// "routing", "candidates", "variants", "timings" and "rerank" are left out when
// /search leaves them out. Scores are written exactly (they parse to the
// same float64s). It returns false, and dst as it was, when a number is
// not finite (as json.Marshal refuses it).
func AppendAnswer[R ResponseShape[H, C, V, T], H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](dst []byte, i int, r *R, elapsed time.Duration) ([]byte, bool) {
	resp := responseShape[H, C, V, T](*r)
	start := len(dst)
	dst = append(dst, `{"i":`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, `,"ms":`...)
	dst = strconv.AppendFloat(dst, millis(elapsed), 'f', -1, 64)
	dst = append(dst, `,"hits":`...)
	dst, ok := appendHitTuples(dst, resp.Hits)
	if !ok {
		return dst[:start], false
	}
	dst = appendRouting(dst, resp.Routing)
	if resp.Candidates != nil {
		if dst, ok = appendCandidateLists(dst, resp.Candidates); !ok {
			return dst[:start], false
		}
	}
	if dst, ok = appendVariants(dst, resp.Variants, appendHitTuples[H]); !ok {
		return dst[:start], false
	}
	if resp.Timings != nil {
		if dst, ok = appendTimings(dst, Timings(*resp.Timings)); !ok {
			return dst[:start], false
		}
	}
	if resp.Rerank != nil {
		if dst, ok = appendRerank(dst, resp.Rerank); !ok {
			return dst[:start], false
		}
	}
	return append(dst, "}\n"...), true
}

// appendRerank appends the "rerank" member: the scores by id, in id order.
func appendRerank(dst []byte, scores map[string]float64) ([]byte, bool) {
	return appendObject(dst, "rerank", scores, appendFloat)
}

// appendObject appends the member named member: m's entries in key
// order, each value written by value.
func appendObject[V any](dst []byte, member string, m map[string]V, value func([]byte, V) ([]byte, bool)) ([]byte, bool) {
	ok := true
	dst = append(dst, `,"`...)
	dst = append(dst, member...)
	dst = append(dst, `":{`...)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for j, k := range keys {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		if dst, ok = value(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// AppendAnswerError appends the answer line of request i that failed
// with the status /search would answer and msg, and a newline:
//
//	{"i":1,"status":400,"error":"variants[0]: a fused score overflows ..."}
func AppendAnswerError(dst []byte, i, status int, msg string) []byte {
	dst = append(dst, `{"i":`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	dst = append(dst, `,"error":`...)
	dst = appendString(dst, msg)
	return append(dst, "}\n"...)
}

// appendCandidateLists appends the "candidates" member of an answer: the
// lists by retriever name, in name order.
func appendCandidateLists[C CandidateShape](dst []byte, lists map[string][]C) ([]byte, bool) {
	return appendObject(dst, "candidates", lists, appendCandidateTuples[C])
}

// appendHitTuples appends hits as [doc_id, score] or [doc_id, chunk_id,
// score] (null for nil, as /search writes it).
func appendHitTuples[H HitShape](dst []byte, hits []H) ([]byte, bool) {
	if hits == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for j := range hits {
		h := Hit(hits[j])
		if j > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendTupleHead(dst, h.DocID, h.ChunkID, h.ChunkID != h.DocID, h.Score); !ok {
			return dst, false
		}
		dst = append(dst, ']')
	}
	return append(dst, ']'), true
}

// appendTupleHead appends a hit's or a candidate's tuple up to its score,
// not closed: [first, score or, with both, [first, second, score (what
// the reader's tupleHead reads).
func appendTupleHead(dst []byte, first, second string, both bool, score float64) ([]byte, bool) {
	dst = append(dst, '[')
	dst = appendString(dst, first)
	dst = append(dst, ',')
	if both {
		dst = appendString(dst, second)
		dst = append(dst, ',')
	}
	return appendFloat(dst, score)
}

// appendCandidateTuples appends a candidate list, each candidate in its
// shortest exact form: [id, score], [id, doc_id, score] or [id, doc_id,
// score, rank].
func appendCandidateTuples[C CandidateShape](dst []byte, list []C) ([]byte, bool) {
	if list == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for j := range list {
		c := Candidate(list[j])
		if j > 0 {
			dst = append(dst, ',')
		}
		byPos := c.Rank == j+1
		var ok bool
		if dst, ok = appendTupleHead(dst, c.ID, c.DocID, c.DocID != c.ID || !byPos, c.Score); !ok {
			return dst, false
		}
		if !byPos {
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(c.Rank), 10)
		}
		dst = append(dst, ']')
	}
	return append(dst, ']'), true
}

// appendFloat appends f as encoding/json writes a float64; false for
// an infinity or NaN, which JSON cannot hold.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}

// htmlSafe[b] reports whether encoding/json writes the ASCII byte b of a
// string as itself (with HTML escaping, as json.Marshal does).
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for b := range t {
		t[b] = b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendString appends s as encoding/json writes a string: as is
// between quotes when nothing in it needs escaping (the common case),
// else escaped as encoding/json escapes it.
func appendString(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			ascii = false
		} else if !htmlSafe[c] {
			return appendStringEscaped(dst, s)
		}
	}
	if !ascii && (!utf8.ValidString(s) || strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029")) {
		return appendStringEscaped(dst, s)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendStringEscaped is encoding/json's appendString with HTML
// escaping (Go 1.26), step for step.
func appendStringEscaped(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if htmlSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				// Bytes < 0x20 but the above, and <, > and &.
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR.
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
