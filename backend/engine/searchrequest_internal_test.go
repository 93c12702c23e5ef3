package engine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/fusiontune/fusiontune/backend"
)

// stdlibSearchRequest decodes data as decodeSearchRequest did before
// the fast path: encoding/json, unknown fields refused, one value.
func stdlibSearchRequest(data []byte) (backend.SearchRequest, bool) {
	var req backend.SearchRequest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		return req, false
	}
	return req, true
}

// TestDecodeSimpleSearch: the fast path decodes the bodies it takes as
// encoding/json does and leaves the rest to it.
func TestDecodeSimpleSearch(t *testing.T) {
	tests := []struct {
		body string
		fast bool
	}{
		{`{"query":"vector search","k":10}`, true},
		{" \t\r\n{ \"k\" : 0 , \"query\" : \"ünï ☃\u2028\" , \"explain\":true,\"timings\":false } \n", true},
		{`{"query":"x","k":-3}`, true},
		{`{"query":"x","k":123456789012345678}`, true},
		{`{"query":"x"}`, true},
		{`{}`, false},
		{`{"query":"a\"b"}`, false},
		{`{"query":"a\u00e9"}`, false},
		{"{\"query\":\"tab\there\"}", false},
		{"{\"query\":\"bad \xff\"}", false},
		{`{"Query":"x"}`, false},
		{`{"query":"x","query":"y"}`, false},
		{`{"query":"x","k":1.0}`, false},
		{`{"query":"x","k":1e2}`, false},
		{`{"query":"x","k":01}`, false},
		{`{"query":"x","k":1234567890123456789}`, false},
		{`{"query":"x","k":null}`, false},
		{`{"query":"x","k":"1"}`, false},
		{`{"query":"x","explain":truex}`, false},
		{`{"query":"x",}`, false},
		{`{"query":"x"} {}`, false},
		{`{"query":"x","fusion":{"method":"rrf"}}`, false},
		{`{"query":"x"`, false},
		{``, false},
		{`[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, ok := decodeSimpleSearch([]byte(tt.body))
			if ok != tt.fast {
				t.Fatalf("fast path %v, want %v", ok, tt.fast)
			}
			if ok {
				want, wok := stdlibSearchRequest([]byte(tt.body))
				if !wok || !reflect.DeepEqual(got, want) {
					t.Fatalf("got %+v, encoding/json %+v (ok %v)", got, want, wok)
				}
			}
			// Either way decodeSearchRequest answers as encoding/json.
			full, err := decodeSearchRequest(bytes.NewReader([]byte(tt.body)))
			want, wok := stdlibSearchRequest([]byte(tt.body))
			if (err == nil) != wok || (wok && !reflect.DeepEqual(full, want)) {
				t.Fatalf("decodeSearchRequest %+v, %v; encoding/json %+v, %v", full, err, want, wok)
			}
		})
	}
}

// FuzzDecodeSimpleSearch: whatever body the fast path takes, encoding/json
// takes too and decodes to the same request.
func FuzzDecodeSimpleSearch(f *testing.F) {
	for _, s := range []string{`{"query":"x","k":10}`, `{"k":-0,"explain":false,"timings":true,"query":""}`,
		` {"query" :"a b"} `, `{"query":"x","k":00}`, "{\"query\":\"\xe2\x80\xa8\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeSimpleSearch(data)
		if !ok {
			return
		}
		want, wok := stdlibSearchRequest(data)
		if !wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: fast path %+v; encoding/json %+v (ok %v)", data, got, want, wok)
		}
	})
}
