// Package e2e holds the end-to-end tests: the real ahptui binary runs in a
// real terminal (tmux, via internal/tmuxtest) against its --demo host, and the
// tests read the screen the way a person does — by finding panels by their
// titles, badges next to names, and the sign-in URL printed in a grant prompt.
//
// This file has those reading helpers. They work on plain capture-pane text
// (no colours), in terminal cells rather than bytes or runes, because a wide
// character (an emoji in a transcript) takes two cells but one rune and would
// otherwise shift every column to its right.
package e2e

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Box-drawing runes of every border style the themes use (rounded, thick
// when colours are off, normal, double).
const (
	topLefts    = "╭┏┌╔"
	topRights   = "╮┓┐╗"
	bottomLefts = "╰┗└╚"
	verticals   = "│┃║"
	horizontals = "─━═"
)

// grid is a screen split into cells: one grapheme per cell, a wide
// grapheme followed by "" for the second cell it covers. Splitting once
// keeps a poll of the screen linear in its size.
type grid [][]string

func newGrid(screen string) grid {
	lines := strings.Split(screen, "\n")
	g := make(grid, len(lines))
	for i, line := range lines {
		for line != "" {
			c, w := ansi.FirstGraphemeCluster(line, ansi.GraphemeWidth)
			if c == "" {
				break
			}
			g[i] = append(g[i], c)
			for ; w > 1; w-- {
				g[i] = append(g[i], "")
			}
			line = line[len(c):]
		}
	}
	return g
}

// cell is the grapheme at (row, col), "" past the end of the line.
func (g grid) cell(row, col int) string {
	if row < 0 || row >= len(g) || col < 0 || col >= len(g[row]) {
		return ""
	}
	return g[row][col]
}

// cut is the text of columns [left, right) of row.
func (g grid) cut(row, left, right int) string {
	cs := g[row]
	left, right = min(max(left, 0), len(cs)), min(max(right, 0), len(cs))
	if left >= right {
		return ""
	}
	return strings.Join(cs[left:right], "")
}

// find lists the columns where text starts in row.
func (g grid) find(row int, text string) []int {
	want := newGrid(text)[0]
	var cols []int
	for c := 0; c+len(want) <= len(g[row]); c++ {
		match := true
		for k, w := range want {
			if g[row][c+k] != w {
				match = false
				break
			}
		}
		if match {
			cols = append(cols, c)
		}
	}
	return cols
}

func isOneOf(s, set string) bool { return s != "" && strings.Contains(set, s) }

// Panel returns the inner lines of the framed panel that carries title —
// in its top border ("╭─ MCP servers (4) ─╮") or on its first inner line —
// without the frame, trailing spaces trimmed. ok is false when no frame
// around title is on screen. The first match from the top wins.
func Panel(screen, title string) (lines []string, ok bool) {
	lines, ok, _ = findPanel(screen, title)
	return lines, ok
}

// WholePanel is Panel for a panel drawn to its bottom border: a screen
// read while the frame was half drawn (an overlay's top over the old
// picture) does not count.
func WholePanel(screen, title string) (lines []string, ok bool) {
	lines, ok, closed := findPanel(screen, title)
	return lines, ok && closed
}

func findPanel(screen, title string) (lines []string, ok, closed bool) {
	g := newGrid(screen)
	for r := range g {
		if !strings.Contains(strings.Join(g[r], ""), title) {
			continue
		}
		for _, col := range g.find(r, title) {
			if lines, ok, closed := g.panelAt(r, col); ok {
				return lines, true, closed
			}
		}
	}
	return nil, false, false
}

// panelAt reads the frame around the title found at (row, col).
func (g grid) panelAt(row, col int) (lines []string, ok, closed bool) {
	top, left, found := g.frameOrigin(row, col)
	if !found {
		return nil, false, false
	}
	right := -1
	for c := left + 1; c < len(g[top]); c++ {
		if isOneOf(g.cell(top, c), topRights) {
			right = c
			break
		}
	}
	if right < 0 {
		return nil, false, false
	}
	for r := top + 1; r < len(g); r++ {
		if isOneOf(g.cell(r, left), bottomLefts) {
			return lines, true, true
		}
		lines = append(lines, strings.TrimRight(g.cut(r, left+1, right), " "))
	}
	// No bottom border: the panel runs off the screen; what is visible is
	// still what a person reads.
	return lines, true, false
}

// frameOrigin finds the top-left corner of the frame around (row, col): left
// along the row over the border's title decoration or blank padding to a
// corner (title in the border) or a vertical (title inside), then up that
// column to the corner.
func (g grid) frameOrigin(row, col int) (top, left int, ok bool) {
	c := col - 1
	for ; c >= 0; c-- {
		if x := g.cell(row, c); x != " " && !isOneOf(x, horizontals) {
			break
		}
	}
	if c < 0 {
		return 0, 0, false
	}
	switch x := g.cell(row, c); {
	case isOneOf(x, topLefts):
		return row, c, true
	case isOneOf(x, verticals):
		for r := row - 1; r >= 0; r-- {
			x := g.cell(r, c)
			if isOneOf(x, topLefts) {
				return r, c, true
			}
			if !isOneOf(x, verticals) {
				return 0, 0, false
			}
		}
	}
	return 0, 0, false
}

// PanelText is Panel's lines joined with newlines, or "" when the panel is
// not on screen.
func PanelText(screen, title string) string {
	lines, _ := Panel(screen, title)
	return strings.Join(lines, "\n")
}

// MCPBadge returns the state badge the MCP panel shows for a server, e.g.
// "● ready", "○ stopped" or "⚠ sign in", wherever the layout puts it: after
// the name on the same line, or on the line under the name (then followed
// by " · ✓ enabled", which is cut off). A pending marker after the name
// (" ⋯ pending", " …") is not part of the badge. ok is false when the panel
// or the server is not on screen.
func MCPBadge(screen, server string) (badge string, ok bool) {
	lines, found := Panel(screen, "MCP servers (")
	if !found {
		return "", false
	}
	for i, l := range lines {
		// A selection marker may precede the name; rows of a plugin's
		// servers are indented.
		t := strings.TrimLeft(l, " ›▸>*")
		rest, cut := strings.CutPrefix(t, server)
		if !cut || (rest != "" && rest[0] != ' ') {
			continue
		}
		rest = strings.TrimSpace(rest)
		for _, p := range []string{"⋯ pending", "…"} {
			rest = strings.TrimSpace(strings.TrimSuffix(rest, p))
		}
		if rest != "" {
			return rest, true
		}
		if i+1 < len(lines) {
			next := strings.TrimSpace(lines[i+1])
			if b, _, _ := strings.Cut(next, " · "); b != "" {
				return b, true
			}
		}
		return "", false
	}
	return "", false
}

// Flatten is the text of lines the way a person reads it: box borders and
// padding gone, lines joined, every run of spaces one space — so a phrase
// the terminal word-wrapped still matches.
func Flatten(lines []string) string {
	var words []string
	for _, l := range lines {
		words = append(words, strings.Fields(trimFrame(l))...)
	}
	return strings.Join(words, " ")
}

// MCPSelected is the name of the server the MCP panel's cursor (›) is on,
// or "" when no row carries the cursor.
func MCPSelected(screen string) string {
	lines, _ := Panel(screen, "MCP servers (")
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(t, "›"); ok {
			name, _, _ := strings.Cut(strings.TrimSpace(rest), " ⋯")
			return strings.TrimSpace(name)
		}
	}
	return ""
}

// trimFrame strips the borders and padding of (possibly nested) boxes from
// both ends of a panel line.
func trimFrame(l string) string { return strings.Trim(l, " "+verticals) }

// AuthURL reassembles the authorization URL a grant prompt prints
// hard-wrapped across lines inside its box: the first line that starts
// with http:// or https:// and has no spaces, joined with the space-free
// lines after it, accepted only when it parses and carries the PKCE and
// state parameters of an authorization request (so the resource URL in the
// prompt's text never passes for it).
func AuthURL(lines []string) (*url.URL, error) {
	for i := range lines {
		t := trimFrame(lines[i])
		if !strings.HasPrefix(t, "http://") && !strings.HasPrefix(t, "https://") || strings.Contains(t, " ") {
			continue
		}
		var b strings.Builder
		for j := i; j < len(lines); j++ {
			piece := trimFrame(lines[j])
			if piece == "" || strings.ContainsAny(piece, " …") {
				break
			}
			b.WriteString(piece)
		}
		u, err := url.Parse(b.String())
		if err != nil {
			continue
		}
		q := u.Query()
		if q.Get("code_challenge") != "" && q.Get("state") != "" {
			return u, nil
		}
	}
	return nil, errors.New("no authorization URL (with code_challenge and state) on screen")
}

// CheckAuthURL says what is wrong with an authorization request for a
// protected resource whose URL ends in resourceSuffix and needs scope, or
// nil when it is a well-formed PKCE S256 request with a loopback redirect.
func CheckAuthURL(u *url.URL, resourceSuffix, scope string) error {
	q := u.Query()
	var errs []error
	want := func(name, value string) {
		if got := q.Get(name); got != value {
			errs = append(errs, fmt.Errorf("%s = %q, want %q", name, got, value))
		}
	}
	want("response_type", "code")
	want("code_challenge_method", "S256")
	if len(q.Get("code_challenge")) < 43 {
		errs = append(errs, fmt.Errorf("code_challenge %q is shorter than a base64url SHA-256", q.Get("code_challenge")))
	}
	if len(q.Get("state")) < 8 {
		errs = append(errs, fmt.Errorf("state %q is shorter than 8 characters", q.Get("state")))
	}
	if q.Get("client_id") == "" {
		errs = append(errs, errors.New("client_id is missing"))
	}
	if r := q.Get("resource"); !strings.HasSuffix(r, resourceSuffix) {
		errs = append(errs, fmt.Errorf("resource = %q, want …%s", r, resourceSuffix))
	}
	if !strings.Contains(" "+q.Get("scope")+" ", " "+scope+" ") {
		errs = append(errs, fmt.Errorf("scope = %q, want it to include %q", q.Get("scope"), scope))
	}
	if ru, err := url.Parse(q.Get("redirect_uri")); err != nil || ru.Scheme != "http" || ru.Hostname() != "127.0.0.1" || ru.Path != "/callback" {
		errs = append(errs, fmt.Errorf("redirect_uri = %q, want http://127.0.0.1:PORT/callback", q.Get("redirect_uri")))
	}
	if u.Hostname() != "127.0.0.1" {
		errs = append(errs, fmt.Errorf("authorization endpoint %s is not the demo's loopback server", u.Host))
	}
	return errors.Join(errs...)
}
