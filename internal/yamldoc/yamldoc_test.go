package yamldoc_test

import (
	"testing"

	"github.com/fusiontune/fusiontune/internal/yamldoc"
)

func TestExtra(t *testing.T) {
	tests := []struct {
		name, in string
		want     int
	}{
		{"empty", "", 0},
		{"one document", "a: 1\nb: 2\n", 0},
		{"one document with a start marker", "---\na: 1\n", 0},
		{"one document with an end marker", "a: 1\n...\n", 0},
		{"second document", "a: 1\n---\nb: 2\n", 2},
		{"second document after the end marker", "a: 1\n...\n---\nb: 2\n", 3},
		{"second empty document", "a: 1\n---\n", 2},
		{"second document of a scalar", "a: 1\n--- 5\n", 2},
		{"JSON then a document", "{\"a\": 1}\n---\n[1]\n", 2},
		{"second document that does not parse", "a: 1\n---\nb: [\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := yamldoc.Extra([]byte(tt.in)); got != tt.want {
				t.Errorf("Extra(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}
