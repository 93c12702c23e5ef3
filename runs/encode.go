package runs

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// appendQueryResult appends q as one line of a queries.jsonl file: the
// bytes encoding/json writes (with HTML escaping off), produced without
// reflection, because the replay writes hundreds of thousands of lines per
// sweep. ok is false for a value it does not handle (a NaN or infinite
// score); the caller then uses encoding/json. TestAppendQueryResult checks
// it against encoding/json, including that it knows every field.
func appendQueryResult(b []byte, q *QueryResult) ([]byte, bool) {
	b = append(b, `{"query_id":`...)
	b = appendString(b, q.QueryID)
	if q.Category != "" {
		b = append(b, `,"category":`...)
		b = appendString(b, q.Category)
	}
	b = append(b, `,"top":`...)
	var ok bool
	if b, ok = appendTop(b, q.Top); !ok {
		return b, false
	}
	b = append(b, `,"labels":`...)
	b = appendString(b, q.Labels)
	b = append(b, `,"scores":`...)
	if b, ok = appendScores(b, q.Scores); !ok {
		return b, false
	}
	b = append(b, `,"primary":`...)
	if b, ok = appendFloat(b, q.Primary); !ok {
		return b, false
	}
	if q.Routing != "" {
		b = append(b, `,"routing":`...)
		b = appendString(b, q.Routing)
	}
	if q.Expected != "" {
		b = append(b, `,"expected_routing":`...)
		b = appendString(b, q.Expected)
	}
	b = append(b, `,"request_id":`...)
	b = appendString(b, q.RequestID)
	b = append(b, `,"latency_ms":`...)
	if b, ok = appendFloat(b, q.LatencyMS); !ok {
		return b, false
	}
	if q.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, q.Error)
	}
	if q.Unjudged {
		b = append(b, `,"unjudged":true`...)
	}
	if q.OnError != "" {
		b = append(b, `,"on_error":`...)
		b = appendString(b, q.OnError)
	}
	return append(b, "}\n"...), true
}

// appendTop appends top as encoding/json writes a []RankedDoc (null when
// nil); ok is false for a score appendFloat does not handle.
func appendTop(b []byte, top []RankedDoc) ([]byte, bool) {
	if top == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, d := range top {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"doc_id":`...)
		b = appendString(b, d.DocID)
		b = append(b, `,"score":`...)
		var ok bool
		if b, ok = appendFloat(b, d.Score); !ok {
			return b, false
		}
		b = append(b, `,"grade":`...)
		b = strconv.AppendInt(b, int64(d.Grade), 10)
		if d.Text != "" {
			b = append(b, `,"text":`...)
			b = appendString(b, d.Text)
		}
		b = append(b, '}')
	}
	return append(b, ']'), true
}

// appendScores appends scores as encoding/json writes a map (keys sorted;
// null when nil); ok is false for a score appendFloat does not handle.
func appendScores(b []byte, scores map[string]float64) ([]byte, bool) {
	if scores == nil {
		return append(b, "null"...), true
	}
	var keysBuf [32]string
	keys := keysBuf[:0]
	for k := range scores {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ { // insertion sort: a dozen keys
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendFloat(b, scores[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendFloat formats f as encoding/json does; false for NaN and ±Inf,
// which JSON cannot hold.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 becomes e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendString quotes s as encoding/json does with HTML escaping off:
// plain printable ASCII is copied, anything else goes through
// encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return appendStringJSON(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendStringJSON(b []byte, s string) []byte {
	var w sliceWriter
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return append(b, w[:len(w)-1]...)
}

type sliceWriter []byte

func (w *sliceWriter) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}
