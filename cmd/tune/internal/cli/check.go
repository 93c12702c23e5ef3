package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// rule is a declarative check of a flag's value (Range, OneOf, Required),
// run once by Parse after the flags parse.
type rule struct {
	lo, hi   float64  // Range: the closed interval
	ranged   bool     // Range was given
	min      bool     // Min was given (lo, no upper bound)
	choices  []string // OneOf
	aliases  []string // AlsoAccepts: accepted, not listed in the message
	required bool     // Required
}

// Range returns the integer or float flag limited to [lo, hi]: Parse
// refuses a value outside with "--NAME: want an integer in [lo, hi] (got
// V)".
func (f Flag) Range(lo, hi float64) Flag {
	switch f.def.(type) {
	case int, int64, float64:
	default:
		panic(fmt.Sprintf("cli: flag %q: Range on a %T flag", f.Name, f.def))
	}
	f.rule.lo, f.rule.hi, f.rule.ranged = lo, hi, true
	return f
}

// Min returns the integer or float flag limited to values >= lo: Parse
// refuses a smaller one with "--NAME: want an integer >= lo (got V)".
func (f Flag) Min(lo float64) Flag {
	f = f.Range(lo, 0)
	f.rule.ranged, f.rule.min = false, true
	return f
}

// OneOf returns the string flag limited to choices: Parse refuses any
// other value with "--NAME: want A, B or C (got "V")".
func (f Flag) OneOf(choices ...string) Flag {
	if _, ok := f.def.(string); !ok {
		panic(fmt.Sprintf("cli: flag %q: OneOf on a %T flag", f.Name, f.def))
	}
	f.rule.choices = choices
	return f
}

// AlsoAccepts returns the OneOf flag accepting aliases too (markdown for
// md), which its message does not list.
func (f Flag) AlsoAccepts(aliases ...string) Flag {
	f.rule.aliases = aliases
	return f
}

// Required returns the string flag made mandatory: Parse refuses an empty
// value with "--NAME is required".
func (f Flag) Required() Flag {
	if _, ok := f.def.(string); !ok {
		panic(fmt.Sprintf("cli: flag %q: Required on a %T flag", f.Name, f.def))
	}
	f.rule.required = true
	return f
}

// Alternatives is choices as prose: "a", "a or b", "a, b or c".
func Alternatives(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// check applies the flag's rule to its parsed value; the error names the
// flag, what it wants and what it got.
func (f Flag) check(p *Parsed) error {
	r := f.rule
	if !r.ranged && !r.min && len(r.choices) == 0 && !r.required {
		return nil // no rule (a custom Value need not be a flag.Getter)
	}
	switch v := p.get(f.Name).(type) {
	case string:
		if r.required && v == "" {
			return fmt.Errorf("--%s is required", f.Name)
		}
		if len(r.choices) > 0 && !slices.Contains(r.choices, v) && !slices.Contains(r.aliases, v) {
			return fmt.Errorf("--%s: want %s (got %q)", f.Name, Alternatives(r.choices), v)
		}
	case int:
		return r.checkRange(f.Name, "an integer", float64(v), fmt.Sprint(v))
	case int64:
		return r.checkRange(f.Name, "an integer", float64(v), fmt.Sprint(v))
	case float64:
		return r.checkRange(f.Name, "a number", v, fmt.Sprint(v))
	}
	return nil
}

func (r rule) checkRange(name, kind string, v float64, got string) error {
	if r.ranged && (v < r.lo || v > r.hi) {
		return fmt.Errorf("--%s: want %s in [%s, %s] (got %s)", name, kind, bound(r.lo), bound(r.hi), got)
	}
	if r.min && v < r.lo {
		return fmt.Errorf("--%s: want %s >= %s (got %s)", name, kind, bound(r.lo), got)
	}
	return nil
}

// bound is a range's bound in plain decimals (1000000000000, not 1e+12).
func bound(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
