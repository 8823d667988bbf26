package waits

import "strings"

// Quote is argv as a POSIX shell reads it back: each argument that is
// not plainly safe is put in single quotes (a quote inside as '\”), so
// a host's id with ; | $ ` or a newline in it is inert text when the
// command is pasted or run with sh -c. The one quoting every printed
// command goes through.
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = QuoteArg(a)
	}
	return strings.Join(out, " ")
}

// QuoteArg is one argument quoted for a POSIX shell.
func QuoteArg(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool { return !safe(r) }) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// safe: r needs no quoting anywhere in a word (letters and digits of
// ASCII, and punctuation no shell gives a meaning there).
func safe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("@%+=:,./-_", r)
}
