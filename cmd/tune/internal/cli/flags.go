package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/internal/suggest"
)

// Flag declares one flag of a command: its name, its default (whose type
// picks the flag's kind), its usage line and, with Bind, the settings key
// it overrides (runs-dir -> runs_dir).
type Flag struct {
	Name  string
	Key   string // settings key the flag overrides; "" for none
	Usage string
	def   any // string, bool, int, int64, float64, time.Duration or func() flag.Value
	rule  rule
}

// String declares a string flag.
func String(name, def, usage string) Flag { return Flag{Name: name, Usage: usage, def: def} }

// Bool declares a boolean flag (it takes no value).
func Bool(name string, def bool, usage string) Flag { return Flag{Name: name, Usage: usage, def: def} }

// Int declares an integer flag (plain decimal values only).
func Int(name string, def int, usage string) Flag { return Flag{Name: name, Usage: usage, def: def} }

// Int64 declares a 64-bit integer flag (plain decimal values only).
func Int64(name string, def int64, usage string) Flag {
	return Flag{Name: name, Usage: usage, def: def}
}

// Float declares a float flag (plain finite decimal values only).
func Float(name string, def float64, usage string) Flag {
	return Flag{Name: name, Usage: usage, def: def}
}

// Duration declares a duration flag.
func Duration(name string, def time.Duration, usage string) Flag {
	return Flag{Name: name, Usage: usage, def: def}
}

// Value declares a flag of a custom kind; newValue returns a fresh value
// for each parse.
func Value(name string, newValue func() flag.Value, usage string) Flag {
	return Flag{Name: name, Usage: usage, def: newValue}
}

// Bind returns the flag bound to the settings key: when given, it
// overrides that setting.
func (f Flag) Bind(key string) Flag { f.Key = key; return f }

// define adds the flag to fs.
func (f Flag) define(fs *flag.FlagSet) {
	switch d := f.def.(type) {
	case string:
		fs.String(f.Name, d, f.Usage)
	case bool:
		fs.Bool(f.Name, d, f.Usage)
	case int:
		fs.Int(f.Name, d, f.Usage)
	case int64:
		fs.Int64(f.Name, d, f.Usage)
	case float64:
		fs.Float64(f.Name, d, f.Usage)
	case time.Duration:
		fs.Duration(f.Name, d, f.Usage)
	case func() flag.Value:
		fs.Var(d(), f.Name, f.Usage)
	default:
		panic(fmt.Sprintf("cli: flag %q: unsupported default %T", f.Name, f.def))
	}
}

// Spec is one command's (or subcommand's) command line: its name as typed
// after tune ("apply", "judge run"), its usage (after the name), its
// flags, when not nil the bounds of its positional arguments and, when
// not empty, the examples that end its help (one command line each).
type Spec struct {
	Name     string
	Usage    string
	Flags    []Flag
	Args     *Args
	Examples string
}

// With returns a copy of s with more flags.
func (s Spec) With(flags ...Flag) Spec {
	s.Flags = append(append([]Flag{}, s.Flags...), flags...)
	return s
}

// PrintExamples prints examples (one command line each, an optional
// "# comment" after it) under an "Examples:" heading, indented; nothing
// when there are none.
func PrintExamples(w io.Writer, examples string) {
	examples = strings.TrimSpace(examples)
	if examples == "" {
		return
	}
	fmt.Fprint(w, "\nExamples:\n")
	for _, line := range strings.Split(examples, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// Parsed is a parsed command line: the flag set (its positional
// arguments, NArg, Arg) and typed accessors by flag name.
type Parsed struct {
	*flag.FlagSet
	keys  map[string]string
	flags []Flag
	args  *Args
}

// FlagSet returns the spec's flags, unparsed, reporting errors instead of
// exiting and printing the usage to stderr.
func (s Spec) FlagSet(stderr io.Writer) *Parsed {
	fs := flag.NewFlagSet("tune "+s.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: tune %s %s\n\n", s.Name, s.Usage)
		fs.PrintDefaults()
		PrintExamples(stderr, s.Examples)
	}
	s.Args.mustValid(s.Name)
	p := &Parsed{FlagSet: fs, keys: map[string]string{}, flags: s.Flags, args: s.Args}
	for _, f := range s.Flags {
		f.define(fs)
		if f.Key != "" {
			p.keys[f.Name] = f.Key
		}
	}
	return p
}

// Parse parses args with the spec's flags (see Parsed.Parse).
func (s Spec) Parse(stderr io.Writer, args []string) (*Parsed, error) {
	p := s.FlagSet(stderr)
	return p, p.Parse(args)
}

// Parse parses args, flags before or after the positional arguments. A
// parse failure is a one-line usage error (exit 2) naming the flag, with a
// did-you-mean for a mistyped one, a value outside the flag's Range,
// OneOf or Required, or positional arguments outside the spec's Args; --help prints the usage and returns flag.ErrHelp
// (exit 0).
func (p *Parsed) Parse(args []string) error {
	fs := p.FlagSet
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard) // the flag package would print the error and the usage
	fs.Usage = func() {}
	err := checkNumberFlags(fs, args)
	if err == nil {
		err = fs.Parse(flagsFirst(fs, args))
	}
	fs.SetOutput(out)
	fs.Usage = usage
	if err == nil {
		if err = p.checkRules(); err == nil {
			err = p.checkArgs()
		}
		return err
	}
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return err
	}
	return &CodedError{Code: ExitUsage, Err: flagError(fs, err)}
}

// checkRules applies the flags' declared rules, the first broken one
// being a usage error (exit 2) that names the command.
func (p *Parsed) checkRules() error {
	for _, f := range p.flags {
		if err := f.check(p); err != nil {
			return &CodedError{Code: ExitUsage, Err: fmt.Errorf("%s: %w", strings.TrimPrefix(p.Name(), "tune "), err)}
		}
	}
	return nil
}

// Keys maps the flags bound to settings keys to their keys.
func (p *Parsed) Keys() map[string]string { return p.keys }

func (p *Parsed) get(name string) any { return p.Lookup(name).Value.(flag.Getter).Get() }

// Str is the value of the string flag name.
func (p *Parsed) Str(name string) string { return p.get(name).(string) }

// Bool is the value of the boolean flag name.
func (p *Parsed) Bool(name string) bool { return p.get(name).(bool) }

// Int is the value of the integer flag name.
func (p *Parsed) Int(name string) int { return p.get(name).(int) }

// Int64 is the value of the 64-bit integer flag name.
func (p *Parsed) Int64(name string) int64 { return p.get(name).(int64) }

// Float is the value of the float flag name.
func (p *Parsed) Float(name string) float64 { return p.get(name).(float64) }

// Duration is the value of the duration flag name.
func (p *Parsed) Duration(name string) time.Duration { return p.get(name).(time.Duration) }

// Value is the value of the custom flag name.
func (p *Parsed) Value(name string) flag.Value { return p.Lookup(name).Value }

// Given reports whether the flag name was on the command line.
func (p *Parsed) Given(name string) bool {
	given := false
	p.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// flagError rewords a flag package error as one line: the command, the
// flag, a did-you-mean for an unknown one, and where the flags are listed.
func flagError(fs *flag.FlagSet, err error) error {
	cmd := strings.TrimPrefix(fs.Name(), "tune ")
	help := fmt.Sprintf("run 'tune %s --help' for its flags", cmd)
	name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !unknown {
		return fmt.Errorf("%s: %w; %s", cmd, err, help)
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if s := suggest.Closest(name, names); s != "" {
		return fmt.Errorf("%s: unknown flag --%s (did you mean --%s?); %s", cmd, name, s, help)
	}
	return fmt.Errorf("%s: unknown flag --%s; %s", cmd, name, help)
}

// flagsFirst moves the flags that follow positional arguments in front of
// them (`tune apply RUN TRIAL --runs-dir X`), since the flag package stops at
// the first positional argument. Everything after "--" stays positional.
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // an unknown flag: Parse reports it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if len(pos) > 0 && pos[0] != "--" && len(flags) > 0 {
		return append(append(flags, "--"), pos...)
	}
	return append(flags, pos...)
}

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string     { return strings.Join(*s, " ") }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

var _ flag.Value = (*StringList)(nil)
