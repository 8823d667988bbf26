package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ahptui/ahptui/host/fleet"
	"github.com/ahptui/ahptui/views"
)

// hostText is host text made safe for a terminal: one line, no control
// characters or escape sequences (views' one sanitizer).
func hostText(s string) string { return views.SanitizeLine(s) }

// views_quote quotes host text in a message.
func views_quote(s string) string { return strconv.Quote(hostText(s)) }

// emit prints v as indented JSON with --json, else calls human.
func (a *app) emit(v any, human func(w io.Writer)) error {
	if a.json {
		if a.filter != nil {
			a.filter.typ = reflect.TypeOf(v) // names the fields --json=FIELDS may pick
		}
		enc := json.NewEncoder(jsonOut(a.Stdout))
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	human(a.Stdout)
	return nil
}

// jsonOut is w for JSON: every C1 control and bidi or invisible
// character a host sent is written as a \u escape, so a terminal that
// shows the JSON (or a log that keeps it) neither acts on U+009B as a
// CSI nor reorders text at U+202E. The JSON means the same.
// With --json=FIELDS or --jq (stdout a *filteredOut, jq.go), each JSON
// text goes through that filter first.
func jsonOut(w io.Writer) io.Writer {
	if fo, ok := w.(*filteredOut); ok {
		return jsonWriter{fo.w, fo.f}
	}
	return jsonWriter{w, nil}
}

type jsonWriter struct {
	w io.Writer
	f *jsonFilter
}

// Write writes p, one whole JSON text as json.Encoder gives it, escaped.
func (j jsonWriter) Write(p []byte) (int, error) {
	out := p
	if j.f != nil {
		var err error
		if out, err = j.f.apply(p); err != nil {
			return 0, err
		}
	}
	if _, err := j.w.Write(escapeJSON(out)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeJSON is the JSON text b with the characters jsonOut names as \u
// escapes. They only occur inside strings (JSON's own syntax is ASCII),
// where the escape stands for the same character.
func escapeJSON(b []byte) []byte {
	if !bytes.ContainsFunc(b, unsafeInJSON) {
		return b
	}
	var out bytes.Buffer
	out.Grow(len(b) + 16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if unsafeInJSON(r) && n > 1 {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[:n])
		}
		b = b[n:]
	}
	return out.Bytes()
}

// unsafeInJSON: C1 controls, and the bidi and invisible characters that
// reorder or hide text (Arabic letter mark, zero-width space to
// right-to-left mark, the embeddings and overrides, word joiner to the
// isolates, the byte order mark).
func unsafeInJSON(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, r == 0x061c, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// ANSI styles for human output on a terminal; none otherwise.
const (
	sgrBold   = "1"
	sgrDim    = "2"
	sgrRed    = "31"
	sgrGreen  = "32"
	sgrYellow = "33"
	sgrCyan   = "36"
)

// paint wraps s in an SGR style when colour is on.
func (a *app) paint(sgr, s string) string {
	if !a.color || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// statusColor is the style of a status word or server state.
func statusColor(word string) string {
	switch word {
	case "input-needed", "authRequired", "starting", "waiting":
		return sgrYellow
	case "error":
		return sgrRed
	case "in-progress":
		return sgrCyan
	case "ready", "idle":
		return sgrGreen
	}
	return sgrDim
}

// table prints rows in aligned columns, the header bold.
func (a *app) table(w io.Writer, header []string, rows [][]string) {
	a.printTable(w, header, rows, true)
}

// tableRows prints rows aligned as table does, without the header line;
// header still names the columns that are coloured (STATUS, STATE).
func (a *app) tableRows(w io.Writer, header []string, rows [][]string) {
	a.printTable(w, header, rows, false)
}

func (a *app) printTable(w io.Writer, header []string, rows [][]string, showHeader bool) {
	width := make([]int, len(header))
	all := rows
	if showHeader {
		all = append([][]string{header}, rows...)
	}
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r []string, style func(i int, s string) string) {
		var b strings.Builder
		for i, c := range r {
			pad := ""
			if i < len(r)-1 {
				pad = strings.Repeat(" ", width[i]-len([]rune(c))+2)
			}
			b.WriteString(style(i, c) + pad)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	if showHeader {
		line(header, func(_ int, s string) string { return a.paint(sgrBold, s) })
	}
	for _, r := range rows {
		line(r, func(i int, s string) string {
			if header[i] == "STATUS" || header[i] == "STATE" {
				return a.paint(statusColor(s), s)
			}
			return s
		})
	}
}

// hostRef is how JSON names a host, everywhere a command prints one: the
// name it was given by (a saved host's name, or the description VS Code's
// registry gives it; "" for a host given by URL) and its URL without the
// connection token. Two members, so a script reads .host.url without
// parsing "NAME (URL)".
type hostRef struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// display is the host as text output names it: NAME (URL), or the URL.
func (r hostRef) display() string {
	if r.Name != "" {
		return r.Name + " (" + r.URL + ")"
	}
	return r.URL
}

// refOf is host h's hostRef.
func refOf(h *fleet.Host) *hostRef { return &hostRef{Name: h.Label, URL: h.URL} }

// ref is c's host as JSON names it.
func (c *conn) ref() *hostRef { return &hostRef{Name: c.name, URL: c.host} }

// colorWanted is whether text output is coloured, by gh's rules:
// CLICOLOR_FORCE (set, not 0) colours even off a terminal; NO_COLOR (set)
// or CLICOLOR=0 switch colour off; else a terminal is coloured.
func colorWanted(getenv func(string) string, tty bool) bool {
	if f := getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	if views.NoColorRequested(getenv) || getenv("CLICOLOR") == "0" {
		return false
	}
	return tty
}
