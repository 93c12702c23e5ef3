package jsonkeys_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/jsonkeys"
)

func TestDuplicate(t *testing.T) {
	tests := []struct {
		name, data, key string
	}{
		{name: "flat", data: `{"a": 1, "b": 2}`},
		{name: "flat twice", data: `{"a": 1, "b": 2, "a": 3}`, key: "a"},
		{name: "nested twice", data: `{"a": {"x": [1, {"y": 1, "y": 2}]}}`, key: "y"},
		{name: "same key in two objects", data: `[{"a": 1}, {"a": 2}]`},
		{name: "key in parent and child", data: `{"a": {"a": 1}, "b": "a"}`},
		{name: "after a nested object", data: `{"a": {"b": 1}, "c": 2, "a": 3}`, key: "a"},
		{name: "empty object", data: `{}`},
		{name: "not JSON", data: `{"a": `},
		{name: "a string value like a key", data: `{"a": "b", "b": 1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, ok := jsonkeys.Duplicate([]byte(tt.data))
			if key != tt.key || ok != (tt.key != "") {
				t.Errorf("Duplicate(%s) = %q, %v; want %q", tt.data, key, ok, tt.key)
			}
		})
	}
}

func FuzzDuplicate(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, {"a": 2}]}, "a": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		jsonkeys.Duplicate(data) // never panics
	})
}
