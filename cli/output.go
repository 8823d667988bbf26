package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ahptui/ahptui/protocol"
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
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	human(a.Stdout)
	return nil
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

// statusWord names a session's or chat's status bits, the most urgent
// first (as the UI's badge does): input-needed, error, in-progress, idle.
func statusWord(s protocol.SessionStatus) string {
	switch {
	case s.Has(protocol.SessionStatusInputNeeded):
		return "input-needed"
	case s.Has(protocol.SessionStatusError):
		return "error"
	case s.Has(protocol.SessionStatusInProgress):
		return "in-progress"
	}
	return "idle"
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
