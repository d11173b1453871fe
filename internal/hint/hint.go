// Package hint gives errors a hint: the one line that tells a user what to
// do about them. The command line prints the error as its cause and the
// hint below it.
package hint

import (
	"errors"
	"fmt"
)

// Error is an error with a hint attached.
type Error struct {
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf formats an error, as fmt.Errorf does, and attaches hint to it.
func Errorf(hint, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Hint: hint}
}

// Wrap attaches hint to err; a nil err stays nil.
func Wrap(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Hint: hint}
}

// Of returns the hint attached to err or to an error it wraps, "" when
// there is none.
func Of(err error) string {
	var h *Error
	if errors.As(err, &h) {
		return h.Hint
	}
	return ""
}
