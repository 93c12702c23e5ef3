package refdoc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// commandsPage is every command's help, from the help outputs the tests
// pin (cmd/tune/testdata/help, which TestHelpGolden holds equal to tune's
// own): tune --help, then each command in its order there, each judge
// subcommand after judge.
func commandsPage(root string) (string, error) {
	dir := filepath.Join(root, "cmd", "tune", "testdata", "help")
	read := func(args ...string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, "tune_"+strings.Join(args, "_")+".txt"))
		if err != nil {
			return "", err
		}
		// "$ tune ...\nexit N\n--- stdout\nOUT--- stderr\nERR"
		_, rest, ok := strings.Cut(string(data), "--- stdout\n")
		if !ok {
			return "", fmt.Errorf("%s: no --- stdout line", strings.Join(args, " "))
		}
		out, errText, _ := strings.Cut(rest, "--- stderr\n")
		return strings.TrimRight(out+errText, "\n"), nil
	}
	top, err := read("--help")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("# Commands\n\nWhat `tune --help` and every `tune COMMAND --help` print.\n\n")
	fmt.Fprintf(&b, "```text\n%s\n```\n", top)
	_, list, _ := strings.Cut(top, "Commands:\n")
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		name := strings.Fields(line)[0]
		help, err := read(name, "--help")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n## tune %s\n\n```text\n%s\n```\n", name, help)
		if name != "judge" {
			continue
		}
		_, subs, _ := strings.Cut(help, "Subcommands:\n")
		for _, sl := range strings.Split(subs, "\n") {
			if !strings.HasPrefix(sl, "  ") {
				break
			}
			sub := strings.Fields(sl)[0]
			sh, err := read("judge", sub, "--help")
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\n### tune judge %s\n\n```text\n%s\n```\n", sub, sh)
		}
	}
	return b.String(), nil
}
