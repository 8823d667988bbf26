package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

// The header's line names the host's resource, so it passes the
// sanitizer: an escape sequence a hostile host puts in a resource name
// never reaches the terminal, and the line fits its width.
func TestAgentSignInNeededIsSanitizedAndFits(t *testing.T) {
	th := NewTheme(true, true)
	for _, w := range []int{20, 60, 120} {
		got := RenderAgentSignInNeeded(th, []string{"Evil\x1b]52;c;aGk=\x07 agent\x1b[2J (https://x)"}, w)
		if strings.Contains(got, "\x1b]52") || strings.Contains(got, "\x1b[2J") || strings.Contains(got, "\x07") {
			t.Fatalf("width %d: a host escape sequence reached the line: %q", w, got)
		}
		if ansi.StringWidth(got) > w {
			t.Fatalf("width %d: the line is %d cells wide", w, ansi.StringWidth(got))
		}
		if w >= 60 && !strings.Contains(ansi.Strip(got), "sign-in needed") {
			t.Fatalf("width %d: %q does not say sign-in is needed", w, ansi.Strip(got))
		}
	}
	if RenderAgentSignInNeeded(th, []string{"\x1b[2J"}, 80) != "" {
		t.Fatal("a name that is nothing but control characters still drew a line")
	}
}

// The offers name exactly the ways that work: gh only when offered, the
// browser only where an authorization server is usable; a token always.
func TestAgentSignInOffers(t *testing.T) {
	th, km := NewTheme(true, true), keymap.DefaultKeyMap()
	text := func(a AgentSignIn) string { return ansi.Strip(strings.Join(RenderAgentSignInOffers(th, km, a), "\n")) }
	if s := text(AgentSignIn{}); !strings.Contains(s, "paste a token") || strings.Contains(s, "gh") || strings.Contains(s, "browser") {
		t.Fatalf("no OAuth, no gh: %q", s)
	}
	if s := text(AgentSignIn{OAuth: true, Gh: true, Err: "bad\x1b[2J token"}); !strings.Contains(s, "use gh auth token") ||
		!strings.Contains(s, "sign in (browser)") || strings.Contains(s, "\x1b") {
		t.Fatalf("OAuth, gh and an error: %q", s)
	}
}
