package main

import (
	"embed"
	"strings"
)

// helpFS holds the long usage texts of the commands, one file per command
// (help/COMMAND.txt, its final newline not part of the text), and the
// examples that end each command's help (help/examples/COMMAND.txt, a
// subcommand's words joined by "-": judge-run.txt; tune.txt for tune
// itself).
//
//go:embed help/*.txt help/examples/*.txt
var helpFS embed.FS

// usage is the usage text of command name (help/NAME.txt).
func usage(name string) string {
	b, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a file go:embed did not take: a build mistake
	}
	return strings.TrimSuffix(string(b), "\n")
}

// examples are the example command lines ending the help of command name
// ("apply", "judge run"; "tune" for tune itself).
func examples(name string) string {
	b, err := helpFS.ReadFile("help/examples/" + strings.ReplaceAll(name, " ", "-") + ".txt")
	if err != nil {
		panic(err) // a command without examples: TestHelpEndsWithExamples says which
	}
	return strings.TrimSuffix(string(b), "\n")
}
