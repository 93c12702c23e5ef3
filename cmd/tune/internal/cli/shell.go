package cli

import (
	"io"
	"os"
	"strings"
)

// ResumeCommand is the command line that resumes run id: the user's own
// arguments (settings, runs directory, experiment file), without any
// earlier --resume, plus --resume id. Arguments with shell metacharacters
// are single-quoted so the line can be pasted.
func ResumeCommand(args []string, id string) string {
	out := []string{"tune"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--resume" || a == "-resume":
			i++ // its value
			continue
		case strings.HasPrefix(a, "--resume=") || strings.HasPrefix(a, "-resume="):
			continue
		}
		out = append(out, shellQuote(a))
	}
	return strings.Join(append(out, "--resume", shellQuote(id)), " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsTerminal reports whether w (or the writer it wraps) is a character
// device (a terminal).
func IsTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
