package settings

import (
	"regexp"
	"strings"
	"time"

	"github.com/fusiontune/fusiontune/backend/command"
	"github.com/fusiontune/fusiontune/backend/httpbackend"
)

// KindCommand is backend.kind for a command-line search program, run once
// per query (backend/command).
const KindCommand = command.Kind

// CommandOptions (backend.command_options) configure the command kind;
// its argv is backend.command, its JSON paths (when stdout is JSON)
// backend.search.hits, id, score, text and routing.
type CommandOptions struct {
	// Timeout bounds one query's process: (0, 10m], default 30s.
	Timeout time.Duration `mapstructure:"timeout"`
	// Concurrency is the processes running at once: [1, 64], default 4.
	Concurrency int `mapstructure:"concurrency"`
	// Regex reads the hits from stdout: one hit per match, the id from
	// the group named id, else group 1, else the whole match (optional
	// groups score and text).
	Regex string `mapstructure:"regex"`
}

// commandProblems lists what is wrong with a command backend block.
func (b Backend) commandProblems(add func(field, format string, args ...any)) {
	for _, f := range []struct {
		field string
		set   bool
	}{
		{"engine", len(b.Engine) > 0}, {"restart", len(b.Restart) > 0}, {"template", b.Template != ""},
		{"config", b.Config != ""}, {"health_url", b.HealthURL != ""}, {"search.url", b.Search.URL != ""},
	} {
		if f.set {
			add(f.field, "not for backend.kind command (it runs backend.command once per query and reads its stdout)")
		}
	}
	if len(b.Command) == 0 || b.Command[0] == "" {
		add("command", `required: the program's argv, e.g. ["./search", "{query}", "--limit", "{k}"] (run directly, never by a shell)`)
	}
	c := b.CommandOptions
	if c.Timeout < 0 || c.Timeout > command.MaxTimeout {
		add("command_options.timeout", "must be in (0, %s] (got %s; unset: %s)", command.MaxTimeout, c.Timeout, command.DefaultTimeout)
	}
	if c.Concurrency < 0 || c.Concurrency > command.MaxConcurrency {
		add("command_options.concurrency", "must be in [1, %d] (got %d; unset: %d)", command.MaxConcurrency, c.Concurrency, command.DefaultConcurrency)
	}
	if c.Regex != "" {
		if _, err := regexp.Compile(c.Regex); err != nil {
			add("command_options.regex", "invalid regular expression %q: %v", c.Regex, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	} else if b.Search.Hits == "" || b.Search.ID == "" {
		add("command_options.regex", `required unless stdout is JSON: then set search.hits and search.id (e.g. "results" and "uri")`)
	}
}

// commandOptions are the command kind's options.
func (b Backend) commandOptions() command.Options {
	q := b.Search
	return command.Options{
		Argv: b.Command, Timeout: b.CommandOptions.Timeout, Concurrency: b.CommandOptions.Concurrency,
		Regex: b.CommandOptions.Regex,
		JSON:  httpbackend.Response{Hits: q.Hits, ID: q.ID, Score: q.Score, Text: q.Text, Routing: q.Routing},
	}
}
