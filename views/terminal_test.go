package views

import (
	"fmt"
	"image/color"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
	"github.com/ahptui/ahptui/protocol"
)

// textGrid is a TermGrid of plain lines, with a red word, a bold one and
// a cell holding an escape (which the pane must not draw).
type textGrid struct {
	lines []string
	cols  int
}

func (g textGrid) Lines() int { return len(g.lines) }
func (g textGrid) Cols() int  { return g.cols }
func (g textGrid) Row(y int, dst []TermCell) []TermCell {
	for _, f := range strings.SplitAfter(g.lines[y], " ") {
		c := TermCell{Width: 1}
		switch strings.TrimSpace(f) {
		case "FAIL":
			c.Fg = color.RGBA{R: 0xcd, A: 0xff}
			c.Bold = true
		case "ok":
			c.Fg = ansi.BasicColor(2)
		case "$":
			c.Reverse = true
		}
		for _, r := range f {
			c.Text = string(r)
			dst = append(dst, c)
		}
	}
	dst = append(dst, TermCell{Text: "\x1b]52;c;aGk=\x07", Width: 1})
	return dst
}

func sampleTermGrid() textGrid {
	g := textGrid{cols: 60}
	for i := range 40 {
		g.lines = append(g.lines, fmt.Sprintf("line %d ok", i))
	}
	g.lines = append(g.lines, "$ make test", "FAIL reconnect_test.go:42", "$ ")
	return g
}

func sampleTermPane() TerminalPane {
	zero, two := int64(0), int64(2)
	return TerminalPane{Title: "build\x1b]0;pwned\x07", Claim: "held by the agent", Detects: true, Follow: true, Grid: sampleTermGrid(),
		Commands: []TermCommandRow{{Line: "make build", ExitCode: &zero}, {Line: "make test\x1b[2J", ExitCode: &two}, {Line: "make lint", Running: true}}}
}

func TestTerminalGolden(t *testing.T) {
	k := keymap.DefaultKeyMap()
	yes := int64(0)
	rows := []TerminalRow{{Title: "build", URI: "agenthost-terminal://s/1", Claim: "held by the agent"},
		{Title: "", URI: "agenthost-terminal://s/2\x1b[31m", Claim: "yours", Exited: true, Code: &yes}}
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		w, h := sz[0], sz[1]
		for _, th := range []struct {
			name string
			th   Theme
		}{{"", noColorTheme}, {"_color", colorTheme}} {
			screens := map[string]string{
				"terminal_pane": RenderTerminal(th.th, k, sampleTermPane(), w, h),
				"terminal_list": RenderTerminals(th.th, k, rows, 0, w, h),
			}
			for name, out := range screens {
				checkScreen(t, th.th, out, w)
				if n := strings.Count(out, "\n") + 1; n != h {
					t.Errorf("%s at %dx%d has %d lines", name, w, h, n)
				}
				if strings.Contains(out, "pwned") || strings.Contains(out, "aGk=") {
					t.Errorf("%s draws host escapes:\n%s", name, out)
				}
				checkGolden(t, fmt.Sprintf("%s_x%d%s", name, h, th.name), w, out)
			}
		}
	}
}

// TestTerminalPaneFollowsAndScrolls: following shows the last lines; a
// top line shows from there; the command strip keeps the last ones with
// their exit codes.
func TestTerminalPaneFollowsAndScrolls(t *testing.T) {
	p := sampleTermPane()
	out := ansi.Strip(RenderTerminal(noColorTheme, keymap.DefaultKeyMap(), p, 80, 24))
	if !strings.Contains(out, "FAIL reconnect_test.go:42") || strings.Contains(out, "line 0 ok") {
		t.Errorf("following does not show the end:\n%s", out)
	}
	for _, want := range []string{"✓ exit 0  make build", "✗ exit 2  make test", "… running  make lint"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
	p.Follow, p.Top = false, 0
	out = ansi.Strip(RenderTerminal(noColorTheme, keymap.DefaultKeyMap(), p, 80, 24))
	if !strings.Contains(out, "line 0 ok") || strings.Contains(out, "FAIL reconnect") {
		t.Errorf("top 0 does not show the start:\n%s", out)
	}
	p.Detects = false
	if out = ansi.Strip(RenderTerminal(noColorTheme, keymap.DefaultKeyMap(), p, 80, 24)); strings.Contains(out, "exit 2") {
		t.Errorf("commands without command detection:\n%s", out)
	}
}

// TestClaimWords names the holder.
func TestClaimWords(t *testing.T) {
	mine := protocol.NewTerminalClaim(protocol.TerminalClientClaim{ClientID: "me"})
	if got := ClaimWords(mine, "me"); got != "yours" {
		t.Errorf("own claim: %q", got)
	}
	if got := ClaimWords(mine, "you"); !strings.Contains(got, "another client") {
		t.Errorf("another's claim: %q", got)
	}
	if got := ClaimWords(protocol.NewTerminalClaim(protocol.TerminalSessionClaim{Session: "s"}), "me"); got != "held by the agent" {
		t.Errorf("session claim: %q", got)
	}
}
