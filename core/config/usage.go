package config

// UsageError is a configuration or input mistake the user must fix (a bad
// key, a missing file, an unknown component name), as opposed to a failure
// while running. The command line prints it without the usage text and exits
// with the usage code (2); code outside the command line tags errors with
// Usage so it need not know about exit codes.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage wraps err as a *UsageError (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{Err: err}
}
