package checkfiles_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fusiontune/fusiontune/cmd/tune/internal/checkfiles"
)

// TestCheckAll: every file is checked and reported before the check
// fails; usage problems fail before any file is read.
func TestCheckAll(t *testing.T) {
	good, bad := "../../../../experiments/testdata/golden/basic.good.json", "../../../../experiments/testdata/golden/all-at-once.bad.yaml"
	tests := []struct {
		name    string
		files   []string
		o       checkfiles.Options
		want    string // error; "" none
		wantOut string
	}{
		{"good", []string{good}, checkfiles.Options{}, "", "ok " + good},
		{"good and bad", []string{bad, good}, checkfiles.Options{}, "check: 1 of 2 files have problems", "ok " + good},
		{"no files", nil, checkfiles.Options{}, "check: no files given", ""},
		{"judgments of two", []string{good, good}, checkfiles.Options{Judgments: "j.tsv"}, "check: --judgments needs exactly one golden set (got 2 files)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := checkfiles.CheckAll(tt.files, "auto", tt.o, &stdout, &stderr)
			if (tt.want == "") != (err == nil) || (err != nil && err.Error() != tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if !strings.Contains(stdout.String(), tt.wantOut) {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.wantOut)
			}
		})
	}
	if err := checkfiles.CheckAll([]string{good}, "nope", checkfiles.Options{}, &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), "check: ") {
		t.Errorf("unknown kind: %v", err)
	}
}
