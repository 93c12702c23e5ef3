package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// policyFile is a shared experiment file of testdata/policy.
func policyFile(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "policy", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}
