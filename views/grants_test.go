package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// grantURL is long and has no spaces, like a real authorization URL.
const grantURL = "https://auth.example.com/oauth2/authorize?response_type=code&client_id=ahptui-7f3a9c&redirect_uri=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&scope=tools%3Adeploy&state=Zk9xR2VtQ0ZqTnBYc2hWd1lL&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&resource=https%3A%2F%2Fmcp.example.com%2Fdeploy"

var grantCases = []struct {
	name string
	g    GrantView
}{
	{"offered", GrantView{Phase: GrantOffered, Resource: "https://mcp.example.com/deploy", Reason: "insufficientScope",
		Scopes: []string{"tools:deploy"}, Description: "The deploy tool needs the tools:deploy scope."}},
	{"offered_expired", GrantView{Phase: GrantOffered, Resource: "https://mcp.example.com/deploy", Reason: "expired",
		Scopes: []string{"tools:read", "tools:deploy"}}},
	{"waiting", GrantView{Phase: GrantWaiting, Resource: "https://mcp.example.com/deploy", URL: grantURL, BrowserOpened: true}},
	{"waiting_no_browser", GrantView{Phase: GrantWaiting, Resource: "https://mcp.example.com/deploy", URL: grantURL}},
	{"succeeded", GrantView{Phase: GrantSucceeded, Resource: "https://mcp.example.com/deploy"}},
	{"failed", GrantView{Phase: GrantFailed, Resource: "https://mcp.example.com/deploy", Err: "the authorization server answered access_denied"}},
}

func TestRenderGrantGolden(t *testing.T) {
	for _, tc := range grantCases {
		for _, w := range goldenWidths {
			out := RenderGrant(noColorTheme, tc.g, w)
			checkScreen(t, noColorTheme, out, w)
			checkGolden(t, "grant_"+tc.name, w, out)
		}
		out := RenderGrant(colorTheme, tc.g, 100)
		checkScreen(t, colorTheme, out, 100)
		checkGolden(t, "grant_"+tc.name+"_color", 100, out)
	}
}

// The waiting prompt shows the URL in full at every width, whatever the
// wrapping: a user on SSH copies it from the screen.
func TestRenderGrantURLNeverTruncated(t *testing.T) {
	for _, th := range []Theme{noColorTheme, colorTheme} {
		for w := 12; w <= 250; w++ {
			out := RenderGrant(th, grantCases[2].g, w)
			checkScreen(t, th, out, w)
			var b strings.Builder
			for _, l := range strings.Split(ansi.Strip(out), "\n") {
				// Strip the frame and padding; keep URL characters.
				l = strings.Trim(l, "║│ ")
				b.WriteString(l)
			}
			if !strings.Contains(b.String(), grantURL) {
				t.Fatalf("w=%d: URL not fully visible:\n%s", w, ansi.Strip(out))
			}
		}
	}
}

func TestRenderGrantContent(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"offered", []string{"Grant additional access", "https://mcp.example.com/deploy needs additional permission: tools:deploy", "enter/g grant access", "n decline"}},
		{"offered_expired", []string{"sign-in has expired", "scopes: tools:read, tools:deploy"}},
		{"waiting", []string{"Waiting for you to approve in the browser…", "A browser window was opened", "esc cancel sign-in"}},
		{"waiting_no_browser", []string{"Could not open a browser. Open this URL yourself:"}},
		{"succeeded", []string{"✓ access granted"}},
		{"failed", []string{"access not granted: the authorization server answered access_denied", "try again", "n decline"}},
	}
	for _, tc := range tests {
		var g GrantView
		for _, c := range grantCases {
			if c.name == tc.name {
				g = c.g
			}
		}
		out := ansi.Strip(RenderGrant(noColorTheme, g, 160))
		flat := strings.Join(strings.Fields(strings.NewReplacer("║", " ", "│", " ").Replace(out)), " ")
		for _, w := range tc.want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, out)
			}
		}
	}
}

func TestRenderGrantHostile(t *testing.T) {
	evil := "\x1b]52;c;cm0=\x07\x1b[2Jx\r\u202e"
	g := GrantView{Phase: GrantWaiting, Resource: evil, Reason: evil, Scopes: []string{evil}, Description: evil, URL: "https://a/" + evil, Err: evil}
	for _, phase := range []GrantPhase{GrantOffered, GrantWaiting, GrantSucceeded, GrantFailed} {
		g.Phase = phase
		for _, th := range []Theme{noColorTheme, colorTheme} {
			out := RenderGrant(th, g, 60)
			checkScreen(t, th, out, 60)
			if strings.Contains(ansi.Strip(out), "52;c") {
				t.Fatalf("phase %d: payload visible", phase)
			}
		}
	}
}

// TestRenderGrantOverlay: the sheet is exactly the width asked, at most the
// height, and however short the screen the whole URL and the cancel/copy
// keys stay on it (the explanation goes first).
func TestRenderGrantOverlay(t *testing.T) {
	for _, tc := range []struct {
		w, h     int
		wantHead bool
	}{{80, 24, true}, {160, 50, true}, {60, 9, false}, {40, 30, true}} {
		for _, opened := range []bool{true, false} {
			g := GrantView{Phase: GrantWaiting, Resource: "Deploy (https://mcp.example.com/deploy)\x1b[2J", URL: grantURL, BrowserOpened: opened}
			out := RenderGrantOverlay(noColorTheme, g, tc.w, tc.h)
			lines := strings.Split(out, "\n")
			if len(lines) > tc.h {
				t.Errorf("%dx%d: %d lines", tc.w, tc.h, len(lines))
			}
			if !strings.Contains(lines[0], GrantOverlayTitle) {
				t.Errorf("%dx%d: no title in %q", tc.w, tc.h, lines[0])
			}
			var joined strings.Builder
			for _, l := range lines {
				if w := ansi.StringWidth(l); w != tc.w {
					t.Errorf("%dx%d: line %q is %d wide", tc.w, tc.h, l, w)
				}
				joined.WriteString(strings.Trim(ansi.Strip(l), "┃│║ "))
			}
			text := joined.String()
			if !strings.Contains(text, grantURL) {
				t.Errorf("%dx%d: URL not whole:\n%s", tc.w, tc.h, out)
			}
			if strings.Contains(out, "\x1b[2J") {
				t.Errorf("host text not sanitized")
			}
			if !strings.Contains(text, "esc") || !strings.Contains(text, "copy") {
				t.Errorf("%dx%d: no cancel/copy hint:\n%s", tc.w, tc.h, out)
			}
			if got := strings.Contains(text, "Waiting for you to approve"); got != tc.wantHead {
				t.Errorf("%dx%d: explanation shown = %v, want %v:\n%s", tc.w, tc.h, got, tc.wantHead, out)
			}
		}
	}
}

// --no-browser is the user's choice: the prompt asks them to open the URL,
// in the card and in the overlay, instead of reporting a failure.
func TestRenderGrantBrowserDisabled(t *testing.T) {
	g := GrantView{Phase: GrantWaiting, Resource: "https://mcp.example.com/deploy", URL: grantURL}
	for name, render := range map[string]func(GrantView) string{
		"card":    func(g GrantView) string { return RenderGrant(noColorTheme, g, 120) },
		"overlay": func(g GrantView) string { return RenderGrantOverlay(noColorTheme, g, 120, 40) },
	} {
		failed := ansi.Strip(render(g))
		if !strings.Contains(failed, "Could not open a browser") {
			t.Errorf("%s: a real failure is not reported:\n%s", name, failed)
		}
		g.BrowserDisabled = true
		chosen := ansi.Strip(render(g))
		if !strings.Contains(chosen, "Open this URL in a browser:") || strings.Contains(chosen, "Could not") {
			t.Errorf("%s: --no-browser reads as a failure:\n%s", name, chosen)
		}
		g.BrowserDisabled = false
	}
}

// Cancelling is the user's choice: it says so, without a failure mark, in
// the card and in the MCP panel.
func TestRenderGrantCancelled(t *testing.T) {
	g := GrantView{Phase: GrantCancelled, Resource: "https://mcp.example.com/deploy"}
	card := ansi.Strip(RenderGrant(noColorTheme, g, 100))
	if !strings.Contains(card, "sign-in cancelled") || strings.Contains(card, "✗") || strings.Contains(card, "failed") {
		t.Errorf("card:\n%s", card)
	}
	panel := ansi.Strip(strings.Join(mcpGrantLines(noColorTheme, g, 40), "\n"))
	if !strings.Contains(panel, "sign-in cancelled") || strings.Contains(panel, "failed") {
		t.Errorf("panel:\n%s", panel)
	}
}

// TestRenderGrantDismissWord is issue 36 item 13: an agent's sign-in
// prompt said "n decline" on its card after a failed or cancelled
// sign-in while the footer said "n dismiss" for the same key and act.
// One word: the card says dismiss where the prompt is dismissed.
func TestRenderGrantDismissWord(t *testing.T) {
	dismiss := hintKeys.Grant.Decline.Help().Key + " dismiss"
	decline := hintKeys.Grant.Decline.Help().Key + " " + hintKeys.Grant.Decline.Help().Desc
	for _, phase := range []GrantPhase{GrantOffered, GrantFailed, GrantCancelled} {
		g := GrantView{Phase: phase, Resource: "https://api.github.com", Err: "offline", Dismiss: true}
		card := ansi.Strip(RenderGrant(noColorTheme, g, 100))
		if !strings.Contains(card, dismiss) || strings.Contains(card, decline) {
			t.Errorf("phase %v: an agent's prompt does not say %q:\n%s", phase, dismiss, card)
		}
		g.Dismiss = false // an MCP server's grant: the tool call fails
		if card := ansi.Strip(RenderGrant(noColorTheme, g, 100)); !strings.Contains(card, decline) {
			t.Errorf("phase %v: a server's grant does not say %q:\n%s", phase, decline, card)
		}
	}
}
