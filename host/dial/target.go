package dial

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"unicode"
)

// TokenParam is the query parameter VS Code's agent host reads its
// connection token from.
const TokenParam = "tkn"

// maxTokenFile bounds what a connection token file may hold.
const maxTokenFile = 64 << 10

// TokenEnv is the environment variable a connection token may come from,
// so the secret need not sit in shell history or in `ps`.
const TokenEnv = "AHPTUI_CONNECTION_TOKEN"

// Target is one host to dial: the address everything shows and binds to,
// and the secret only the dialer sends.
type Target struct {
	// URL is scheme://host[:port]/path with no query and no fragment (or
	// ws+unix:///socket/path for a Unix socket): what the status line,
	// the log and the saved sign-ins name the host by.
	URL string
	// Name, when set, is the saved host's name, shown instead of URL.
	Name string
	// Socket is the Unix socket to dial instead of URL's host ("" for TCP).
	Socket string
	// token is the connection token, sent as ?tkn= and nowhere else.
	token string
	// query is the rest of the given URL's query, sent as given.
	query url.Values
	// dialURL is the ws:// or wss:// URL the upgrade request names
	// (without the token).
	dialURL string
	// verify: each dial checks its peer is ours before the upgrade
	// (VerifyPeer); recheck, when set, runs first.
	verify  bool
	recheck func() error
	// stream, when set, opens the connection the upgrade runs over
	// (Stream: an SSH transport).
	stream StreamDialer
}

// HasToken says whether the target carries a connection token.
func (t Target) HasToken() bool { return t.token != "" }

// Display is how the target is named to the user: the saved name, or the
// token-free URL.
func (t Target) Display() string {
	if t.Name != "" {
		return t.Name + " (" + t.URL + ")"
	}
	return t.URL
}

// WithToken returns t sending token (a non-empty one replaces any the URL
// carried).
func (t Target) WithToken(token string) Target {
	if token = strings.TrimSpace(token); token != "" {
		t.token = token
	}
	return t
}

// Parse splits raw (a ws:// or wss:// URL, possibly with ?tkn=) into a
// Target. It checks nothing about the form beyond what it needs; errors
// never quote the token.
func Parse(raw string) (Target, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return Target{}, fmt.Errorf("%q is not a URL: %w", Redact(raw), scrubErr(err, raw))
	}
	q := u.Query()
	tok := q.Get(TokenParam)
	q.Del(TokenParam)
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	t := Target{URL: u.String(), token: tok, query: q, dialURL: u.String()}
	return t, nil
}

// Unix is a target on a Unix socket (a VS Code window's agent host). It
// is named ws+unix:// + the socket's absolute path.
func Unix(socket, token string) Target {
	u := url.URL{Scheme: "ws+unix", Path: socket}
	return Target{URL: u.String(), Socket: socket, token: token,
		// The HTTP request on the socket names a host all the same;
		// the socket, not this name, says where it goes.
		dialURL: "ws://localhost/"}
}

// Redact is raw for a message: the query and fragment cut off (where
// a token rides), and any user:password dropped. It works on text only, so
// it redacts what does not parse as well, and never re-spells the rest.
func Redact(raw string) string { return redact(raw, false) }

// RedactPassword is Redact keeping the user name, which names an ssh
// box's login (ssh://user@box), and dropping only a password.
func RedactPassword(raw string) string { return redact(raw, true) }

func redact(raw string, keepUser bool) string {
	s := strings.TrimSpace(raw)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if j := strings.Index(s, "://"); j >= 0 {
		rest := s[j+3:]
		auth := rest
		if k := strings.IndexByte(rest, '/'); k >= 0 {
			auth = rest[:k]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			switch c := strings.IndexByte(auth[:at], ':'); {
			case !keepUser:
				s = s[:j+3] + rest[at+1:]
			case c >= 0:
				s = s[:j+3] + auth[:c] + rest[at:]
			}
		}
	}
	return s
}

// ReadTokenFile reads a connection token from a file (surrounding
// whitespace dropped). It refuses an empty one, and one that is not the
// user's own regular file, 0600 or stricter, reached without a symlink:
// the token store's rules. A hosts.yml someone planted could otherwise
// send a line of any file of the user's as ?tkn=.
func ReadTokenFile(path string) (string, error) {
	tok, err := readTokenFile(path)
	if err != nil {
		return "", &tokenFileError{err}
	}
	return tok, nil
}

// ErrTokenFile matches (errors.Is) every error of ReadTokenFile: a local
// file that is missing, unsafe (open to others) or malformed, which a
// command reports as a local failure, not as a wrong flag.
var ErrTokenFile = errors.New("connection token file")

type tokenFileError struct{ err error }

func (e *tokenFileError) Error() string        { return e.err.Error() }
func (e *tokenFileError) Unwrap() error        { return e.err }
func (e *tokenFileError) Is(target error) bool { return target == ErrTokenFile }

func readTokenFile(path string) (string, error) {
	f, err := openPrivate(path)
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return "", fmt.Errorf("read the connection token file: %w (check --connection-token-file)", err)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return "", fmt.Errorf("read the connection token file: %w (check --connection-token-file)", err)
	}
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("the connection token file %s is larger than %d bytes: put only the host's token in it", path, maxTokenFile)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("the connection token file %s is empty: put the host's token in it", path)
	}
	if strings.ContainsAny(tok, "\r\n") {
		return "", errors.New("the connection token file holds more than one line: put only the host's token in it")
	}
	return tok, nil
}

// Scrub removes secret (raw and URL-escaped) from text where it stands
// as a secret, never inside another word: a one-letter or common-word
// token must not turn "connect" into "cREDACTEDnnect".
//
// A secret of longTokenLen bytes or more is removed wherever it occurs
// (no word holds one by chance). A shorter one is removed where it is a
// secret's value: after "=" (a query value, tkn=), in a URL's userinfo
// (before "@"), after "Bearer " or "token: " (headers), or quoted whole
// ("SECRET"); and, when it is token-shaped (not letters alone), as a
// whole word anywhere.
func Scrub(text, secret string) string {
	if secret == "" {
		return text
	}
	forms := []string{secret}
	for _, f := range []string{url.QueryEscape(secret), url.PathEscape(secret)} {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	for _, f := range forms {
		if len(secret) >= longTokenLen {
			text = strings.ReplaceAll(text, f, redacted)
			continue
		}
		text = scrubShort(text, f, tokenShaped(secret))
	}
	return text
}

const redacted = "REDACTED"

// longTokenLen is the length from which a secret is redacted wherever it
// occurs.
const longTokenLen = 16

// scrubShort redacts each occurrence of s in text that secretAt allows.
func scrubShort(text, s string, shaped bool) string {
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], s)
		if j < 0 {
			break
		}
		j += i
		end := j + len(s)
		if secretAt(text, j, end, shaped) {
			b.WriteString(text[i:j])
			b.WriteString(redacted)
			i = end
			continue
		}
		b.WriteString(text[i : j+1])
		i = j + 1
	}
	b.WriteString(text[i:])
	return b.String()
}

// secretAt: text[j:end] (a secret's spelling) stands as a secret there.
func secretAt(text string, j, end int, shaped bool) bool {
	// Within a word on either side (where the secret's own edge is a
	// word character) it is part of that word.
	if end < len(text) && wordByte(text[end-1]) && wordByte(text[end]) {
		return false
	}
	leftInWord := j > 0 && wordByte(text[j]) && wordByte(text[j-1])
	before := strings.ToLower(text[:j])
	var next byte
	if end < len(text) {
		next = text[end]
	}
	switch {
	case strings.HasSuffix(before, "="),
		strings.HasSuffix(before, "bearer "),
		strings.HasSuffix(before, "token: "), strings.HasSuffix(before, "token "),
		j > 0 && (text[j-1] == '"' || text[j-1] == '\'') && next == text[j-1],
		next == '@' && j > 0 && (text[j-1] == ':' || text[j-1] == '/'):
		return true
	}
	return shaped && !leftInWord
}

// wordByte: a byte of a word (ASCII letter, digit, '_' or '-', or any
// byte of a non-ASCII character).
func wordByte(c byte) bool {
	return c >= 0x80 || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tokenShaped: secret is not letters alone (which may be a word of the
// text), so a whole word spelled like it is the secret.
func tokenShaped(secret string) bool {
	for _, r := range secret {
		if !unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// scrubErr is err with every query of raw removed from its text.
func scrubErr(err error, raw string) error {
	text := err.Error()
	if i := strings.IndexAny(raw, "?#"); i >= 0 && i+1 < len(raw) {
		text = strings.ReplaceAll(text, raw[i+1:], "…")
	}
	return errors.New(text)
}

// encodeQuery is url.Values.Encode for a plain map.
func encodeQuery(q map[string][]string) string {
	return url.Values(q).Encode()
}

// ScrubError is err with t's token removed from its text; errors.Is and
// errors.As still see err.
func (t Target) ScrubError(err error) error {
	if err == nil || t.token == "" {
		return err
	}
	return &scrubbed{err: err, token: t.token}
}

type scrubbed struct {
	err   error
	token string
}

func (s *scrubbed) Error() string { return Scrub(s.err.Error(), s.token) }
func (s *scrubbed) Unwrap() error { return s.err }
