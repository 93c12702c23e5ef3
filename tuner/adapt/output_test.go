package adapt_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/backend/fusion"
	"github.com/fusiontune/fusiontune/internal/inputerr"
	"github.com/fusiontune/fusiontune/tuner/adapt"
)

// TestAdaptOutput: --out writes the one group's learned policy as
// Encode gives it; --out or --apply over several groups is an input
// error; neither asks for nothing.
func TestAdaptOutput(t *testing.T) {
	p := &fusion.Policy{Version: fusion.PolicyVersion}
	one := []*adapt.Report{{Collection: "collect-001.jsonl", Learned: p}}
	two := append(one, &adapt.Report{Collection: "collect-002.jsonl", Learned: p})
	if r, err := adapt.Output(two, "", false); r != nil || err != nil {
		t.Errorf("neither: %v, %v", r, err)
	}
	var ie *inputerr.Error
	if _, err := adapt.Output(two, "", true); !errors.As(err, &ie) || !strings.Contains(err.Error(), "the run has 2 replay groups") {
		t.Errorf("two groups: %v", err)
	}
	out := filepath.Join(t.TempDir(), "policy.json")
	r, err := adapt.Output(one, out, false)
	if err != nil || r != one[0] {
		t.Fatalf("one group: %v, %v", r, err)
	}
	want, _ := p.Encode()
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("written %q, want %q", got, want)
	}
}
