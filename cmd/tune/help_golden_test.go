package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpGolden pins every command's and subcommand's --help (its
// output streams and exit code) to testdata/help/*.txt, so moving code out
// of cmd/tune cannot change what users see. -update rewrites the files.
func TestHelpGolden(t *testing.T) {
	cases := [][]string{{"--help"}, {"help"}, {"judge"}, {"judge", "--help"}}
	for _, c := range commands() {
		cases = append(cases, []string{c.name, "--help"})
	}
	for _, c := range judgeCommands() {
		cases = append(cases, []string{"judge", c.name, "--help"})
	}
	for _, args := range cases {
		name := "tune_" + strings.Join(args, "_")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			got := fmt.Sprintf("$ tune %s\nexit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			path := filepath.Join("testdata", "help", name+".txt")
			if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" { // declared in compare_test.go
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("tune %s: help changed\n got:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
			}
		})
	}
}
