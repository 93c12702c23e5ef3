package tuner

// ExitCode is the exit code of a command failing on the user's input (2,
// as internal/cli.ExitUsage): cli.Code reads it through the error chain,
// so commands return the library's errors as they are.
func (e *InputError) ExitCode() int { return 2 }
