package searchwire

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"
)

// DecodeResponse decodes a /search body as json.Unmarshal into a fresh R
// does. Bodies of the shape the engine writes (its fields, spelled as it
// spells them, each once; numbers that parse; a string with escapes or
// invalid UTF-8 is handed to json.Unmarshal alone) are read by a scanner
// that knows that shape (ScanResponse), and anything else (another
// backend's fields, nulls inside arrays, an error) by json.Unmarshal
// itself, so every body decodes to what json.Unmarshal gives, or fails as
// it fails.
func DecodeResponse[R ResponseShape[H, C, V, T], H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](data []byte) (R, error) {
	if out, ok := ScanResponse[R](data); ok {
		return out, nil
	}
	var out R
	err := json.Unmarshal(data, &out)
	return out, err
}

// ScanResponse is DecodeResponse's scanner alone: the response and true
// when data has the engine's shape, false when it leaves data to
// json.Unmarshal ("timings" among them: /search writes them only when
// asked).
func ScanResponse[R ResponseShape[H, C, V, T], H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](data []byte) (R, bool) {
	d := scanner{data: data}
	out, ok := response[H, C, V, T](&d)
	return R(out), ok
}

// errShape stops the scanner: the body is left to json.Unmarshal.
var errShape = errors.New("not the engine's shape")

// scanner reads one response; any surprise sets err (errShape).
type scanner struct {
	data []byte
	pos  int
	err  error
}

func (d *scanner) fail() { d.err = errShape }

func (d *scanner) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (d *scanner) peek() byte {
	d.space()
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *scanner) expect(c byte) {
	if d.err == nil && d.peek() != c {
		d.fail()
		return
	}
	d.pos++
}

// null consumes a null, if next.
func (d *scanner) null() bool {
	if d.err != nil || d.peek() != 'n' || len(d.data)-d.pos < 4 || string(d.data[d.pos:d.pos+4]) != "null" {
		return false
	}
	d.pos += 4
	return true
}

// str reads a string: a plain one (no escapes, valid UTF-8) directly,
// any other through json.Unmarshal of the string alone (its escapes and
// replacement of invalid bytes).
func (d *scanner) str() string {
	if d.err != nil {
		return ""
	}
	d.expect('"')
	start := d.pos
	plain := true
	for d.err == nil && d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if plain {
				return string(d.data[start : d.pos-1])
			}
			return d.unquote(d.data[start-1 : d.pos])
		case c == '\\':
			plain = false
			d.pos++ // the escaped byte cannot end the string
		case c < 0x20:
			d.fail()
			return ""
		case c >= 0x80:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size <= 1 {
				plain = false // json.Unmarshal replaces the byte
			}
			d.pos += max(size, 1) - 1
		}
		d.pos++
	}
	d.fail()
	return ""
}

// unquote decodes one quoted JSON string as json.Unmarshal does.
func (d *scanner) unquote(quoted []byte) string {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		d.fail()
	}
	return s
}

// number returns the text of a JSON number (the grammar json.Unmarshal
// accepts).
func (d *scanner) number() string {
	if d.err != nil {
		return ""
	}
	d.space()
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		d.fail()
		return ""
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			d.fail()
			return ""
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			d.fail()
			return ""
		}
	}
	return string(d.data[start:d.pos])
}

func (d *scanner) float() float64 {
	s := d.number()
	if d.err != nil {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.fail()
	}
	return v
}

func (d *scanner) int() int {
	s := d.number()
	if d.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		d.fail()
	}
	return int(v)
}

// object reads an object's members, handing each key to member (which
// reads the value), failing on a key given twice.
func (d *scanner) object(member func(key string, seen *uint32)) {
	d.expect('{')
	var seen uint32
	if d.peek() == '}' {
		d.pos++
		return
	}
	for d.err == nil {
		key := d.str()
		d.expect(':')
		if d.err != nil {
			return
		}
		member(key, &seen)
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return
		default:
			d.fail()
		}
	}
}

// once marks field bit in seen, failing when it was seen before.
func (d *scanner) once(seen *uint32, bit uint32) {
	if *seen&bit != 0 {
		d.fail()
	}
	*seen |= bit
}

// array reads an array (empty and non-nil for [], as json.Unmarshal
// makes it), calling elem per element.
func (d *scanner) array(elem func()) {
	d.expect('[')
	if d.peek() == ']' {
		d.pos++
		return
	}
	for d.err == nil {
		if d.peek() == 'n' { // a null element: json.Unmarshal's zero value
			d.fail()
			return
		}
		elem()
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return
		default:
			d.fail()
		}
	}
}

func response[H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](d *scanner) (responseShape[H, C, V, T], bool) {
	var out responseShape[H, C, V, T]
	d.object(func(key string, seen *uint32) {
		switch key {
		case "hits":
			d.once(seen, 1)
			out.Hits = hits[H](d)
		case "routing":
			d.once(seen, 2)
			if !d.null() {
				out.Routing = d.str()
			}
		case "candidates":
			d.once(seen, 4)
			out.Candidates = candidates[C](d)
		case "variants":
			d.once(seen, 8)
			out.Variants = variants[H, V](d, true, hits[H])
		default: // timings and any other field: json.Unmarshal's
			d.fail()
		}
	})
	if d.space(); d.err != nil || d.pos != len(d.data) {
		return responseShape[H, C, V, T]{}, false
	}
	return out, true
}

func hits[H HitShape](d *scanner) []H {
	if d.null() {
		return nil
	}
	out := []H{}
	d.array(func() {
		var h Hit
		d.object(func(key string, seen *uint32) {
			switch key {
			case "doc_id":
				d.once(seen, 1)
				h.DocID = d.str()
			case "chunk_id":
				d.once(seen, 2)
				h.ChunkID = d.str()
			case "score":
				d.once(seen, 4)
				h.Score = d.float()
			case "text":
				d.once(seen, 8)
				h.Text = d.str()
			default:
				d.fail()
			}
		})
		out = append(out, H(h))
	})
	return out
}

func candidates[C CandidateShape](d *scanner) map[string][]C {
	return candidateLists(d, false, func(int) C {
		var c Candidate
		d.object(func(key string, seen *uint32) {
			switch key {
			case "id":
				d.once(seen, 1)
				c.ID = d.str()
			case "doc_id":
				d.once(seen, 2)
				c.DocID = d.str()
			case "score":
				d.once(seen, 4)
				c.Score = d.float()
			case "rank":
				d.once(seen, 8)
				c.Rank = d.int()
			default:
				d.fail()
			}
		})
		return C(c)
	})
}

// candidateLists reads an object of named candidate lists, each item read
// by one (given its 1-based position); a list may be null when nullLists
// (nil), else null fails, as does a name given twice. null reads as nil.
func candidateLists[C CandidateShape](d *scanner, nullLists bool, one func(pos int) C) map[string][]C {
	if d.null() {
		return nil
	}
	out := map[string][]C{}
	d.object(func(name string, _ *uint32) {
		if _, dup := out[name]; dup {
			d.fail()
			return
		}
		if d.null() {
			if nullLists {
				out[name] = nil
			} else {
				d.fail()
			}
			return
		}
		list := []C{}
		d.array(func() { list = append(list, one(len(list)+1)) })
		out[name] = list
	})
	return out
}

// variants reads the variants of a response, each variant's hits by
// hits. Lax (a /search body, as json.Unmarshal reads it), null reads as
// nil and a null routing as ""; else (a batch answer) null fails.
func variants[H HitShape, V VariantShape[H]](d *scanner, lax bool, hits func(*scanner) []H) []V {
	if lax && d.null() {
		return nil
	}
	out := []V{}
	d.array(func() {
		var v variantShape[H]
		d.object(func(key string, seen *uint32) {
			switch key {
			case "hits":
				d.once(seen, 1)
				v.Hits = hits(d)
			case "routing":
				d.once(seen, 2)
				if !lax || !d.null() {
					v.Routing = d.str()
				}
			default:
				d.fail()
			}
		})
		out = append(out, V(v))
	})
	return out
}

// DecodeAnswer decodes one answer line of /search/batch (AppendAnswer's
// or AppendAnswerError's, without the newline). Its error says the line
// is no answer.
func DecodeAnswer[R ResponseShape[H, C, V, T], H HitShape, C CandidateShape, V VariantShape[H], T TimingsShape](line []byte) (Answer[R], error) {
	d := scanner{data: line}
	var a Answer[R]
	var resp responseShape[H, C, V, T]
	index := -1
	d.object(func(key string, seen *uint32) {
		switch key {
		case "i":
			d.once(seen, 1)
			index = d.int()
		case "ms":
			d.once(seen, 2)
			a.Elapsed = time.Duration(d.float() * float64(time.Millisecond))
		case "hits":
			d.once(seen, 4)
			resp.Hits = hitTuples[H](&d)
		case "routing":
			d.once(seen, 8)
			resp.Routing = d.str()
		case "candidates":
			d.once(seen, 16)
			resp.Candidates = candidateTuples[C](&d)
		case "variants":
			d.once(seen, 32)
			resp.Variants = variants[H, V](&d, false, hitTuples[H])
		case "timings":
			d.once(seen, 64)
			resp.Timings = timings[T](&d)
		case "rerank":
			d.once(seen, 512)
			m := map[string]float64{}
			d.object(func(id string, _ *uint32) { m[id] = d.float() })
			resp.Rerank = m
		case "status":
			d.once(seen, 128)
			a.Status = d.int()
		case "error":
			d.once(seen, 256)
			a.Error = d.str()
		default:
			d.fail()
		}
	})
	if d.space(); d.err != nil || d.pos != len(d.data) {
		return a, errors.New("not an answer of /search/batch")
	}
	if index < 0 {
		return a, errors.New(`no "i"`)
	}
	a.Index = index
	if a.Status == 0 && a.Error == "" {
		a.Response = R(resp)
	}
	return a, nil
}

// hitTuples reads hits written as [doc_id, score] or [doc_id, chunk_id,
// score] (null: nil).
func hitTuples[H HitShape](d *scanner) []H {
	if d.null() {
		return nil
	}
	out := []H{}
	d.array(func() {
		var h Hit
		h.DocID, h.ChunkID, h.Score = d.tupleHead()
		d.expect(']')
		out = append(out, H(h))
	})
	return out
}

// tupleHead reads a hit's or a candidate's tuple up to its score, not
// closed (what appendTupleHead writes): [first, score or [first, second,
// score; second defaults to first.
func (d *scanner) tupleHead() (first, second string, score float64) {
	d.expect('[')
	first = d.str()
	d.expect(',')
	second = first
	if d.peek() == '"' {
		second = d.str()
		d.expect(',')
	}
	return first, second, d.float()
}

// candidateTuples reads candidate lists written as [id, score], [id,
// doc_id, score] or [id, doc_id, score, rank] (the rank defaulting to the
// 1-based position, the document to the id).
func candidateTuples[C CandidateShape](d *scanner) map[string][]C {
	return candidateLists(d, true, func(pos int) C {
		c := Candidate{Rank: pos}
		c.ID, c.DocID, c.Score = d.tupleHead()
		if d.peek() == ',' {
			d.pos++
			c.Rank = d.int()
		}
		d.expect(']')
		return C(c)
	})
}

func timings[T TimingsShape](d *scanner) *T {
	var t Timings
	d.object(func(key string, seen *uint32) {
		switch key {
		case "lexical_ms":
			d.once(seen, 1)
			t.LexicalMS = d.float()
		case "dense_ms":
			d.once(seen, 2)
			t.DenseMS = d.float()
		case "fusion_ms":
			d.once(seen, 4)
			t.FusionMS = d.float()
		case "rerank_ms":
			d.once(seen, 8)
			t.RerankMS = d.float()
		default:
			d.fail()
		}
	})
	out := T(t)
	return &out
}
