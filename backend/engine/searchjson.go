package engine

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend"
)

// The /search response encoder: the bytes encoding/json's Marshal writes
// for a backend.SearchResponse (HTML-safe string escaping, the same float
// format, the same omitted fields), without reflection and into a reused
// buffer (TestSearchResponseJSON, FuzzSearchResponseJSON). Responses with
// candidate lists (explain) are left to encoding/json.

// responseBufs holds the idle buffers of encoded responses.
var responseBufs = sync.Pool{New: func() any { return new([]byte) }}

// writeSearchResponse writes resp with status 200 as writeJSON would,
// byte for byte.
func writeSearchResponse(w http.ResponseWriter, resp *backend.SearchResponse) {
	bp := responseBufs.Get().(*[]byte)
	defer responseBufs.Put(bp)
	b, ok := appendSearchResponse((*bp)[:0], resp)
	if !ok {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	b = append(b, '\n')
	*bp = b
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// appendSearchResponse appends resp's JSON to dst as json.Marshal writes
// it; false when resp holds what it leaves to encoding/json: candidate
// lists, or a number JSON cannot hold (json.Marshal's error).
func appendSearchResponse(dst []byte, resp *backend.SearchResponse) ([]byte, bool) {
	if len(resp.Candidates) > 0 {
		return dst, false
	}
	dst = append(dst, `{"hits":`...)
	dst, ok := appendHits(dst, resp.Hits)
	if !ok {
		return dst, false
	}
	if resp.Routing != "" {
		dst = append(dst, `,"routing":`...)
		dst = appendJSONString(dst, resp.Routing)
	}
	if len(resp.Variants) > 0 {
		dst = append(dst, `,"variants":[`...)
		for i := range resp.Variants {
			v := &resp.Variants[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"hits":`...)
			if dst, ok = appendHits(dst, v.Hits); !ok {
				return dst, false
			}
			if v.Routing != "" {
				dst = append(dst, `,"routing":`...)
				dst = appendJSONString(dst, v.Routing)
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if t := resp.Timings; t != nil {
		for i, f := range [3]float64{t.LexicalMS, t.DenseMS, t.FusionMS} {
			dst = append(dst, timingKeys[i]...)
			if dst, ok = appendJSONFloat(dst, f); !ok {
				return dst, false
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), true
}

// timingKeys precede backend.StageTimings' fields in order.
var timingKeys = [3]string{`,"timings":{"lexical_ms":`, `,"dense_ms":`, `,"fusion_ms":`}

// appendHits appends hits as a JSON array (null when nil).
func appendHits(dst []byte, hits []backend.Hit) ([]byte, bool) {
	if hits == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i := range hits {
		h := &hits[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"doc_id":`...)
		dst = appendJSONString(dst, h.DocID)
		if h.ChunkID != "" {
			dst = append(dst, `,"chunk_id":`...)
			dst = appendJSONString(dst, h.ChunkID)
		}
		dst = append(dst, `,"score":`...)
		var ok bool
		if dst, ok = appendJSONFloat(dst, h.Score); !ok {
			return dst, false
		}
		if h.Text != "" {
			dst = append(dst, `,"text":`...)
			dst = appendJSONString(dst, h.Text)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// appendJSONFloat appends f as encoding/json writes a float64; false for
// an infinity or NaN, which JSON cannot hold.
func appendJSONFloat(dst []byte, f float64) ([]byte, bool) {
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

// appendJSONString appends s as encoding/json writes a string: as is
// between quotes when nothing in it needs escaping (the common case),
// else escaped as encoding/json escapes it.
func appendJSONString(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			ascii = false
		} else if !htmlSafe[c] {
			return appendJSONStringEscaped(dst, s)
		}
	}
	if !ascii && (!utf8.ValidString(s) || strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029")) {
		return appendJSONStringEscaped(dst, s)
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONStringEscaped is encoding/json's appendString with HTML
// escaping (Go 1.26), step for step.
func appendJSONStringEscaped(dst []byte, s string) []byte {
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
