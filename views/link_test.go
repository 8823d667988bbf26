package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestSignInURLIsHyperlink: copying the hard-wrapped sign-in URL with the
// mouse broke it (issue 22, item 11). Every row of it is an OSC 8
// hyperlink to the whole URL, one link id for all; a URL a link must not
// carry (another scheme, a control character, a space) is drawn as text
// only.
func TestSignInURLIsHyperlink(t *testing.T) {
	th := NewTheme(true, false)
	good := "https://auth.example.com/authorize?client_id=a&state=b&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback"
	g := GrantView{Phase: GrantWaiting, Resource: "r", URL: good}
	for _, out := range []string{RenderGrant(th, g, 40), RenderGrantOverlay(th, g, 40, 30)} {
		n := strings.Count(out, ansi.SetHyperlink(good, "id="+linkID(good)))
		if rows := len(urlLines(th, good, 38)); n < rows || rows < 2 {
			t.Fatalf("%d of %d URL rows are links:\n%q", n, rows, out)
		}
		if strings.Count(out, ansi.ResetHyperlink()) != n {
			t.Fatalf("a link is left open:\n%q", out)
		}
	}
	for _, bad := range []string{
		"javascript:alert(1)",
		"file:///etc/passwd",
		"https://a.example/\x1b]8;;https://evil.example\x07x",
		"https://a.example/\x07",
		"https://a.example/a b",
		"https://user:pw@a.example/",
		"https://a.example/é",
		"https:/no-host",
		"https://a.example/" + strings.Repeat("a", maxLinkLen),
	} {
		if SignInLink(bad) != "" {
			t.Errorf("SignInLink(%q) accepted it", bad)
		}
		out := RenderGrantOverlay(th, GrantView{Phase: GrantWaiting, Resource: "r", URL: bad}, 60, 40)
		if strings.Contains(out, "\x1b]8;") {
			t.Errorf("%q: drawn as a hyperlink:\n%q", bad, out)
		}
	}
}
