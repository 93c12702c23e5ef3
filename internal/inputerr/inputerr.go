package inputerr

// Error marks Err as caused by the user's input.
type Error struct{ Err error }

// Error returns the wrapped error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the exit code of a command failing on the user's input: 2.
func (e *Error) ExitCode() int { return 2 }

// Wrap marks err as the user's input error; nil stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err}
}
