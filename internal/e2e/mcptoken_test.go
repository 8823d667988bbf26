package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/views"
)

// TestMCPSignInPasteToken is issue 36 item 8 through the binary and the
// demo host: g on the GitHub MCP server (it needs a sign-in) opens the
// sign-in sheet, which offers t as the agent's sign-in does; t ends the
// browser flow and opens a masked field; the pasted token goes to the
// host with authenticate for the server's advertised resource (seen in
// --trace, the token redacted there), and the host's refusal of this
// made-up token is said. The token is never on the screen. Then t on the
// server in the panel opens the same field with no browser flow first.
func TestMCPSignInPasteToken(t *testing.T) {
	t.Parallel()
	skipShort(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	u := startApp(t, 120, 40, append(demoArgs(suiteVersion), "--trace", trace)...)
	screen := u.see("connected to the demo", func(s string) bool {
		return connectedTo(suiteVersion)(s) && strings.Contains(PanelText(s, "Sessions ("), "Demo: MCP")
	})
	u.openDemoSession(screen)
	u.see("GitHub asks for a sign-in", mcpBadgeIs("GitHub", "⚠"))
	u.focus("MCP", km.Global.FocusNext, hint(km.MCP.SignIn))
	for range 6 {
		if _, open := Panel(u.s.Capture(), views.GrantOverlayTitle); open {
			break
		}
		u.hit(km.MCP.SignIn)
		if _, err := u.s.WaitForFunc(func(s string) bool { _, open := Panel(s, views.GrantOverlayTitle); return open }, stepTimeout/6); err == nil {
			break
		}
		u.hit(km.MCP.Down)
	}
	u.see("the sign-in sheet offers a token", func(s string) bool {
		return strings.Contains(Flatten(strings.Split(PanelText(s, views.GrantOverlayTitle), "\n")), hint(km.Grant.Token))
	})
	u.hit(km.Grant.Token)
	u.see("the token field", func(s string) bool {
		_, open := Panel(s, views.TokenSheetTitle)
		return open && strings.Contains(s, "Token:")
	})
	const tok = "ghp_e2eMadeUpToken0123456789abcdefABCD"
	u.s.Paste(tok)
	u.see("the token masked", func(s string) bool { return strings.Contains(s, "Token: ••••") })
	if strings.Contains(u.s.Capture(), tok) {
		t.Fatal("the pasted token is on the screen")
	}
	u.press("Enter")
	u.see("the host's refusal said", func(s string) bool { return strings.Contains(statusLine(s), "refused the token") })
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var pushed bool
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"method":"authenticate"`) && strings.Contains(l, demohost.GitHubResourcePath+`"`) {
			pushed = true
		}
	}
	if !pushed {
		t.Fatalf("no authenticate for the GitHub server's resource in the trace:\n%s", b)
	}
	if strings.Contains(string(b), tok) {
		t.Fatal("the trace holds the token")
	}
	// The same route with no browser flow first: t on the server in the
	// panel (the card names it) opens the field at once.
	u.see("the server's card offers t", func(s string) bool {
		return strings.Contains(PanelText(s, "MCP servers"), hint(km.MCP.Token))
	})
	u.hit(km.MCP.Token)
	u.see("the token field, no browser flow", func(s string) bool {
		_, field := Panel(s, views.TokenSheetTitle)
		return field && !strings.Contains(s, "waiting for browser")
	})
	u.hit(km.Paste.Cancel)
	u.see("the field closed", func(s string) bool { _, open := Panel(s, views.TokenSheetTitle); return !open })
}
