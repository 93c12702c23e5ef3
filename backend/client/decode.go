package client

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend"
	"github.com/fusiontune/fusiontune/backend/fusion"
)

// decodeResponse decodes a /search response body as json.Unmarshal into
// a fresh backend.SearchResponse does. Bodies of the shape the embedded
// engine writes (its fields, spelled as it spells them, each once;
// numbers that parse; a string with escapes or invalid UTF-8 is handed
// to json.Unmarshal alone) are read by a scanner
// that knows that shape — a replay's collection decodes 60,000 candidates
// and its verification 90,000 hits — and anything else (another
// backend's fields, nulls inside arrays, an error) by
// json.Unmarshal itself, so every body decodes to what json.Unmarshal
// gives, or fails as it fails.
func decodeResponse(data []byte) (backend.SearchResponse, error) {
	d := scanner{data: data}
	if out, ok := d.response(); ok {
		return out, nil
	}
	var out backend.SearchResponse
	err := json.Unmarshal(data, &out)
	return out, err
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

func (d *scanner) response() (backend.SearchResponse, bool) {
	var out backend.SearchResponse
	d.object(func(key string, seen *uint32) {
		switch key {
		case "hits":
			d.once(seen, 1)
			out.Hits = d.hits()
		case "routing":
			d.once(seen, 2)
			if !d.null() {
				out.Routing = d.str()
			}
		case "candidates":
			d.once(seen, 4)
			out.Candidates = d.candidates()
		case "variants":
			d.once(seen, 8)
			out.Variants = d.variants()
		default: // timings and any other field: json.Unmarshal's
			d.fail()
		}
	})
	if d.space(); d.err != nil || d.pos != len(d.data) {
		return backend.SearchResponse{}, false
	}
	return out, true
}

func (d *scanner) hits() []backend.Hit {
	if d.null() {
		return nil
	}
	out := []backend.Hit{}
	d.array(func() {
		var h backend.Hit
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
		out = append(out, h)
	})
	return out
}

func (d *scanner) candidates() map[string][]fusion.Candidate {
	return d.candidateLists(false, func(int) fusion.Candidate {
		var c fusion.Candidate
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
		return c
	})
}

// candidateLists reads an object of named candidate lists, each item read
// by one (given its 1-based position); a list may be null when nullLists
// (nil), else null fails, as does a name given twice. null reads as nil.
func (d *scanner) candidateLists(nullLists bool, one func(pos int) fusion.Candidate) map[string][]fusion.Candidate {
	if d.null() {
		return nil
	}
	out := map[string][]fusion.Candidate{}
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
		list := []fusion.Candidate{}
		d.array(func() { list = append(list, one(len(list)+1)) })
		out[name] = list
	})
	return out
}

func (d *scanner) variants() []backend.Variant {
	if d.null() {
		return nil
	}
	out := []backend.Variant{}
	d.array(func() {
		var v backend.Variant
		d.object(func(key string, seen *uint32) {
			switch key {
			case "hits":
				d.once(seen, 1)
				v.Hits = d.hits()
			case "routing":
				d.once(seen, 2)
				if !d.null() {
					v.Routing = d.str()
				}
			default:
				d.fail()
			}
		})
		out = append(out, v)
	})
	return out
}
