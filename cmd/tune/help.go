package main

import (
	"embed"
	"strings"
)

// helpFS holds the long usage texts of the commands, one file per command
// (help/COMMAND.txt, its final newline not part of the text).
//
//go:embed help/*.txt
var helpFS embed.FS

// usage is the usage text of command name (help/NAME.txt).
func usage(name string) string {
	b, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a file go:embed did not take: a build mistake
	}
	return strings.TrimSuffix(string(b), "\n")
}
