package engine

import (
	"unicode/utf8"

	"github.com/fusiontune/fusiontune/backend"
)

// simpleField decodes the value of member key into req and says which of
// the four members it was (0 query, 1 k, 2 explain, 3 timings); false
// for any other member or a value not of the simple form.
func (d *simpleDecoder) simpleField(req *backend.SearchRequest, key string) (int, bool) {
	var ok bool
	switch key {
	case "query":
		req.Query, ok = d.plainString()
		return 0, ok
	case "k":
		req.K, ok = d.integer()
		return 1, ok
	case "explain":
		req.Explain, ok = d.boolean()
		return 2, ok
	case "timings":
		req.Timings, ok = d.boolean()
		return 3, ok
	}
	return 0, false
}

// decodeSimpleSearch decodes the common /search body without reflection:
// one JSON object whose members are among "query" (a string without
// escapes or control bytes, valid UTF-8), "k" (an integer of at most 18
// digits), "explain" and "timings" (true or false), each at most once,
// spelled exactly so, then only whitespace. For such a body it returns
// what encoding/json decodes (FuzzDecodeSimpleSearch); for anything else
// false, and encoding/json decodes it (and words its errors).
func decodeSimpleSearch(data []byte) (backend.SearchRequest, bool) {
	var req backend.SearchRequest
	d := simpleDecoder{data: data}
	d.space()
	if !d.byte('{') {
		return req, false
	}
	var seen [4]bool
	for first := true; ; first = false {
		d.space()
		if d.byte('}') {
			if first {
				return req, false // {}: left to encoding/json
			}
			break
		}
		if !first && (!d.byte(',') || !d.spaceThen()) {
			return req, false
		}
		key, ok := d.plainString()
		if !ok {
			return req, false
		}
		d.space()
		if !d.byte(':') {
			return req, false
		}
		d.space()
		field, ok := d.simpleField(&req, key)
		if !ok || seen[field] {
			return req, false
		}
		seen[field] = true
	}
	d.space()
	return req, d.i == len(d.data)
}

// simpleDecoder reads data from i.
type simpleDecoder struct {
	data []byte
	i    int
}

// space skips JSON whitespace.
func (d *simpleDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// spaceThen skips whitespace and reports whether anything follows.
func (d *simpleDecoder) spaceThen() bool {
	d.space()
	return d.i < len(d.data)
}

// byte consumes c if it is next.
func (d *simpleDecoder) byte(c byte) bool {
	if d.i < len(d.data) && d.data[d.i] == c {
		d.i++
		return true
	}
	return false
}

// plainString reads a string without escapes or control bytes whose
// bytes are valid UTF-8: its value is its bytes.
func (d *simpleDecoder) plainString() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	for ; d.i < len(d.data); d.i++ {
		switch c := d.data[d.i]; {
		case c == '"':
			s := d.data[start:d.i]
			d.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// integer reads -?(0|[1-9][0-9]*) of at most 18 digits, followed by
// none of the bytes that would make it a longer number.
func (d *simpleDecoder) integer() (int, bool) {
	neg := d.byte('-')
	start := d.i
	n := 0
	for d.i < len(d.data) && d.data[d.i] >= '0' && d.data[d.i] <= '9' {
		n = n*10 + int(d.data[d.i]-'0')
		d.i++
	}
	digits := d.i - start
	if digits == 0 || digits > 18 || (digits > 1 && d.data[start] == '0') {
		return 0, false
	}
	if d.i < len(d.data) {
		switch d.data[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// boolean reads true or false.
func (d *simpleDecoder) boolean() (bool, bool) {
	rest := d.data[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}
