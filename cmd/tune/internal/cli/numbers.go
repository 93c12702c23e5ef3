package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/fusiontune/fusiontune/internal/plainnum"
)

// checkNumberFlags refuses, before fs parses args, a value of an integer or
// float flag that is not a plain decimal number: the flag package reads an
// integer with strconv's base prefixes and separators ("--k 0x10",
// "--changed 1_000", "+4") and a float with "Inf" or "0x1p-3", where every
// file tune reads refuses them (see internal/plainnum).
func checkNumberFlags(fs *flag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue // the flag package reports it
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			continue
		}
		var good func(string) bool
		want := ""
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			good = func(s string) bool {
				_, ok := plainnum.Int(s)
				_, err := strconv.ParseInt(s, 0, 64)
				return ok || err != nil // not a number at all: the flag package says so
			}
			want = "a plain decimal integer (no sign +, _ separators or base prefix)"
		case float64:
			good = func(s string) bool {
				_, ok := plainnum.Float(s)
				_, err := strconv.ParseFloat(s, 64)
				return ok || err != nil
			}
			want = "a plain finite decimal number (no sign +, _ separators, hexadecimal or infinity)"
		default:
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				continue // the flag package reports the missing value
			}
			i++
			value = args[i]
		}
		if !good(value) {
			return fmt.Errorf("invalid value %q for flag -%s: want %s", value, name, want)
		}
	}
	return nil
}
