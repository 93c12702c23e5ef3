package cli

import (
	"fmt"
	"strings"
)

// Args bounds a command's positional arguments: Parse refuses fewer than
// Min or more than Max (a usage error, exit 2, naming the command). Want
// names them in the error ("RUN and optionally TRIAL"); with Max 0 it is a
// hint after the refused argument instead.
type Args struct {
	Min, Max int
	Want     string
}

// NoArgs is the Args of a command that takes flags only.
var NoArgs = &Args{}

// ArgRange is the Args of a command taking min to max arguments, want
// naming them.
func ArgRange(min, max int, want string) *Args { return &Args{Min: min, Max: max, Want: want} }

// check reports args outside the bounds, the message naming the command.
func (a *Args) check(name string, args []string) error {
	switch {
	case a == nil || (len(args) >= a.Min && len(args) <= a.Max):
		return nil
	case a.Max == 0 && a.Want != "":
		return UsageErrorf("%s: unexpected argument %q (%s)", name, args[0], a.Want)
	case a.Max == 0:
		return UsageErrorf("%s: unexpected argument %q", name, args[0])
	}
	return UsageErrorf("%s: want %s (got %d arguments)", name, a.Want, len(args))
}

// checkArgs checks p's positional arguments against its spec's Args.
func (p *Parsed) checkArgs() error {
	return p.args.check(strings.TrimPrefix(p.Name(), "tune "), p.Args())
}

// mustValid panics on Args no command line can meet: a declaration mistake.
func (a *Args) mustValid(spec string) {
	if a != nil && (a.Min < 0 || a.Max < a.Min || (a.Max > 0 && a.Want == "")) {
		panic(fmt.Sprintf("cli: %s: Args{%d, %d, %q}: want 0 <= Min <= Max and Want naming the arguments", spec, a.Min, a.Max, a.Want))
	}
}
