package ui

// withAdvice is err's text plus what the user can do about it, for the
// status line. Lower layers add a short context each and no advice; this
// is the one place that knows which keys and flags help. (Filled in by
// the error-advice change; for now the text is the error's.)
func withAdvice(err error) string { return err.Error() }
