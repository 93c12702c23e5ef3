package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// cliFlags maps a command's flag names to whether the flag takes a value.
type cliFlags map[string]bool

// cliHelp is what `tune --help` and every `tune COMMAND --help` say: the
// commands and, per command (and per judge subcommand, "judge run"), the
// flags.
type cliHelp struct {
	commands []string
	judge    []string
	flags    map[string]cliFlags // "" is the default command, the sweep
	texts    map[string]string   // each command's help ("" for tune --help, "judge" for tune judge --help)
}

var (
	helpOnce sync.Once
	helpData *cliHelp
	helpErr  error
)

// tuneHelp runs the built tune's help once per test binary.
func tuneHelp(t *testing.T) *cliHelp {
	t.Helper()
	bin := tuneBinary(t)
	helpOnce.Do(func() { helpData, helpErr = readHelp(bin) })
	if helpErr != nil {
		t.Fatal(helpErr)
	}
	return helpData
}

func readHelp(bin string) (*cliHelp, error) {
	help := func(args ...string) (string, error) {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("tune %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	top, err := help("--help")
	if err != nil {
		return nil, err
	}
	h := &cliHelp{commands: listed(top, "Commands:"), flags: map[string]cliFlags{}, texts: map[string]string{"": top}}
	judge, err := help("judge", "--help")
	if err != nil {
		return nil, err
	}
	h.judge = listed(judge, "Subcommands:")
	h.texts["judge"] = judge
	if len(h.commands) < 10 || len(h.judge) < 3 {
		return nil, fmt.Errorf("tune --help lists %d commands, tune judge --help %d subcommands:\n%s\n%s", len(h.commands), len(h.judge), top, judge)
	}
	names := append([]string{}, h.commands...)
	for _, s := range h.judge {
		names = append(names, "judge "+s)
	}
	for _, name := range names {
		if name == "judge" {
			continue
		}
		out, err := help(append(strings.Fields(name), "--help")...)
		if err != nil {
			return nil, err
		}
		h.flags[name] = parseFlags(out)
		h.texts[name] = out
	}
	h.flags[""] = h.flags["sweep"]
	return h, nil
}

// listed returns the first words of the indented lines after the line
// head, up to the first blank line.
func listed(text, head string) []string {
	_, rest, ok := strings.Cut(text, head+"\n")
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		out = append(out, strings.Fields(l)[0])
	}
	return out
}

var flagLineRe = regexp.MustCompile(`^  -([^\s]+)(.*)$`)

// parseFlags reads the flag package's listing: "  -name type" for a flag
// with a value, "  -name" or "  -c<TAB>usage" for a boolean.
func parseFlags(help string) cliFlags {
	out := cliFlags{"h": false, "help": false}
	for _, l := range strings.Split(help, "\n") {
		if m := flagLineRe.FindStringSubmatch(l); m != nil {
			out[m[1]] = strings.HasPrefix(m[2], " ")
		}
	}
	return out
}

// anyBool reports whether name is a boolean flag of some command (the
// dispatcher's view: the word after it may be the command).
func (h *cliHelp) anyBool(name string) bool {
	for _, fl := range h.flags {
		if v, ok := fl[name]; ok && !v {
			return true
		}
	}
	return false
}

// anyFlag reports whether some command has the flag name.
func (h *cliHelp) anyFlag(name string) bool {
	for _, fl := range h.flags {
		if _, ok := fl[name]; ok {
			return true
		}
	}
	return false
}

// checkInvocation checks the arguments after `tune`: the command (the
// first word naming one that is not a flag's value; none: the sweep)
// exists, and so does every flag it is given. synopsis is true for usage
// lines (text blocks, inline code), whose words may be placeholders.
func (h *cliHelp) checkInvocation(args []string, synopsis bool) []string {
	var problems []string
	cmd, start := "", 0
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && !h.anyBool(flagName(args[i-1])) {
			continue // the previous flag's value
		}
		if slices.Contains(h.commands, a) || a == "help" {
			cmd, start = a, i+1
		} else if regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(a) && !synopsis {
			problems = append(problems, fmt.Sprintf("unknown command %q", a))
		} else if regexp.MustCompile(`^[a-z][a-z-]+$`).MatchString(a) && synopsis && i == 0 {
			problems = append(problems, fmt.Sprintf("unknown command %q", a))
		}
		break
	}
	if cmd == "help" {
		return problems
	}
	if cmd == "judge" {
		for i := start; i < len(args); i++ {
			if strings.HasPrefix(args[i], "-") {
				continue
			}
			if sub := args[i]; slices.Contains(h.judge, sub) {
				cmd, start = "judge "+sub, i+1
			} else if regexp.MustCompile(`^[a-z]+$`).MatchString(sub) {
				problems = append(problems, fmt.Sprintf("unknown judge subcommand %q", sub))
			}
			break
		}
	}
	flags := h.flags[cmd]
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || !regexp.MustCompile(`^--?[A-Za-z]`).MatchString(a) {
			continue
		}
		name := flagName(a)
		if _, ok := flags[name]; ok {
			continue
		}
		if cmd == "eval" && len(name) > 1 && (name[0] == 'm' || name[0] == 'l') && !strings.HasPrefix(a, "--") {
			continue // trec_eval's glued forms: -mP.10, -l2
		}
		where := "tune " + cmd
		if cmd == "" {
			where = "tune (the sweep)"
		}
		problems = append(problems, fmt.Sprintf("%s has no flag %s", where, a))
	}
	return problems
}

// flagName is a flag argument's name: "--runs-dir=x" -> "runs-dir".
func flagName(arg string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return name
}

// shellWords splits a shell script into simple commands, each a list of
// words with quotes removed: operators (| || && ; & ( ) $( `) separate
// commands, redirections and their targets are dropped, comments and
// backslash-newlines removed.
func shellWords(script string) [][]string {
	var cmds [][]string
	var cur []string
	var word strings.Builder
	inWord, skipNext := false, false
	flushWord := func() {
		if inWord {
			if !skipNext {
				cur = append(cur, word.String())
			}
			skipNext = false
		}
		word.Reset()
		inWord = false
	}
	flushCmd := func() {
		flushWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	rs := []rune(script)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\' && i+1 < len(rs) && rs[i+1] == '\n':
			i++
		case c == '\\' && i+1 < len(rs):
			word.WriteRune(rs[i+1])
			inWord = true
			i++
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, len(rs))]))
			inWord, i = true, j
		case c == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				if rs[j] == '\\' {
					j++
				}
				j++
			}
			word.WriteString(string(rs[i+1 : min(j, len(rs))]))
			inWord, i = true, j
		case c == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			flushCmd()
		case c == '\n' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '`':
			if c == '&' && inWord && strings.HasSuffix(word.String(), ">") {
				word.WriteRune(c) // 2>&1
				continue
			}
			flushCmd()
		case c == '$' && i+1 < len(rs) && rs[i+1] == '(':
			flushCmd()
			i++
		case c == '>' || c == '<':
			if inWord && strings.Trim(word.String(), "0123456789&") == "" {
				word.Reset()
				inWord = false
			} else {
				flushWord()
			}
			for i+1 < len(rs) && (rs[i+1] == '>' || rs[i+1] == '&') {
				i++
			}
			if i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' && rs[i] == '&' {
				i++ // >&2
				continue
			}
			skipNext = true
		case c == ' ' || c == '\t':
			flushWord()
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	flushCmd()
	return cmds
}

var assignRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// commandWords strips a simple command's environment assignments and
// wrappers (time, nice, env), leaving the program and its arguments.
func commandWords(words []string) []string {
	for len(words) > 0 {
		switch w := words[0]; {
		case assignRe.MatchString(w), w == "time", w == "nice", w == "env", w == "exec", w == "then", w == "do", w == "else", w == "!", w == "if", w == "while":
			words = words[1:]
		default:
			return words
		}
	}
	return nil
}

// isTune reports whether a program word runs tune: tune, bin/tune, a path
// ending in /tune.
func isTune(w string) bool { return w == "tune" || strings.HasSuffix(w, "/tune") }

var scriptPathRe = regexp.MustCompile(`(?:^|[\s=])(?:\./)?(scripts/[A-Za-z0-9_./-]*[A-Za-z0-9_])`)

// docChecker checks the commands a page shows.
type docChecker struct {
	root    string
	help    *cliHelp
	targets []string // the Makefile's targets
}

func newDocChecker(t *testing.T, root string) *docChecker {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	c := &docChecker{root: root, help: tuneHelp(t)}
	for _, m := range regexp.MustCompile(`(?m)^([a-zA-Z][a-zA-Z0-9_-]*):`).FindAllStringSubmatch(string(mk), -1) {
		c.targets = append(c.targets, m[1])
	}
	return c
}

// script checks every command of an sh block.
func (c *docChecker) script(text string) []string {
	var problems []string
	for _, words := range shellWords(text) {
		words = commandWords(words)
		if len(words) == 0 {
			continue
		}
		switch {
		case isTune(words[0]):
			problems = append(problems, c.help.checkInvocation(words[1:], false)...)
		case words[0] == "make":
			problems = append(problems, c.makeTargets(words[1:])...)
		}
	}
	return append(problems, c.scriptPaths(text)...)
}

// synopsis checks a usage line or an inline code span: `tune ...`,
// `make ...`, a bare `--flag`, or a scripts/ path.
func (c *docChecker) synopsis(text string) []string {
	text = strings.TrimSpace(text)
	problems := c.scriptPaths(text)
	fields := strings.Fields(text)
	switch {
	case len(fields) > 1 && isTune(fields[0]):
		var args []string
		for _, f := range fields[1:] {
			if f == "#" {
				break // a comment follows
			}
			f = strings.Trim(f, "[](){},;")
			if f == "|" || f == "" || f == "..." {
				continue
			}
			for _, part := range strings.Split(f, "|") {
				if part = strings.Trim(part, "[](){},;."); part != "" {
					args = append(args, part)
				}
			}
		}
		problems = append(problems, c.help.checkInvocation(args, true)...)
	case len(fields) > 1 && fields[0] == "make":
		problems = append(problems, c.makeTargets(fields[1:])...)
	case regexp.MustCompile(`^--[a-z][a-z0-9-]*(?:[ =].*)?$`).MatchString(text):
		if name := flagName(fields[0]); !c.help.anyFlag(name) {
			problems = append(problems, fmt.Sprintf("no tune command has the flag --%s", name))
		}
	}
	return problems
}

func (c *docChecker) makeTargets(args []string) []string {
	var problems []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || assignRe.MatchString(a) || strings.ContainsAny(a, "[]|.") {
			continue
		}
		if !slices.Contains(c.targets, a) {
			problems = append(problems, fmt.Sprintf("the Makefile has no target %q", a))
		}
	}
	return problems
}

func (c *docChecker) scriptPaths(text string) []string {
	var problems []string
	for _, m := range scriptPathRe.FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(filepath.Join(c.root, m[1])); err != nil {
			problems = append(problems, fmt.Sprintf("%s: no such file in the repository", m[1]))
		}
	}
	return problems
}
