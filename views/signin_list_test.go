package views

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

// The URL's rows hold the URL and nothing else: no border glyph, no other
// text, so a terminal selection (triple-click, drag) copies only the URL.
// The rows, joined, are the URL; every other row keeps its frame.
func TestGrantOverlayURLRowsAreBare(t *testing.T) {
	for _, w := range []int{60, 80, 200} {
		g := GrantView{Phase: GrantWaiting, Resource: "https://mcp.example.com/deploy", URL: grantURL, BrowserDisabled: true, Server: "auth.example.com"}
		lines := strings.Split(ansi.Strip(RenderGrantOverlay(noColorTheme, g, w, 40)), "\n")
		var url strings.Builder
		for i, l := range lines {
			if ansi.StringWidth(l) != w {
				t.Errorf("%d: line %d is %d wide", w, i, ansi.StringWidth(l))
			}
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "https://") || (url.Len() > 0 && !strings.ContainsAny(l, "┃┗━")) {
				url.WriteString(t)
			}
		}
		if url.String() != grantURL {
			t.Errorf("%d: the bare rows read %q, want the URL", w, url.String())
		}
		text := strings.Join(lines, "\n")
		if !strings.Contains(text, "You sign in at auth.example.com") {
			t.Errorf("%d: the sheet does not name the authorization server:\n%s", w, text)
		}
	}
}

func TestGrantOverlayDeviceAndPaste(t *testing.T) {
	device := GrantView{Phase: GrantWaiting, Resource: "r", URL: "https://auth.example.com/device",
		Device: &DeviceView{UserCode: "WDJB-MJHT\x1b[2J", VerificationURI: "https://auth.example.com/device"}}
	out := ansi.Strip(RenderGrantOverlay(noColorTheme, device, 80, 30))
	if !strings.Contains(out, "WDJB-MJHT") || strings.Contains(out, "\x1b[2J") || !strings.Contains(out, "\n https://auth.example.com/device") {
		t.Errorf("device grant sheet:\n%s", out)
	}
	if strings.Contains(out, "paste URL") {
		t.Errorf("a device grant offers the paste key:\n%s", out)
	}

	long := "http://127.0.0.1:53682/callback?code=" + strings.Repeat("c", 200) + "&state=END"
	paste := GrantView{Phase: GrantWaiting, Resource: "r", URL: grantURL, Pasting: true, Pasted: long, PasteErr: "pasted address is not this sign-in's redirect\x07"}
	out = ansi.Strip(RenderGrantOverlay(noColorTheme, paste, 80, 40))
	for _, want := range []string{"Paste the address", "state=END█", "not this sign-in's redirect", "enter complete sign-in", "esc back"} {
		if !strings.Contains(out, want) {
			t.Errorf("paste field lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x07") {
		t.Error("the error was not sanitized")
	}
}

func TestRenderSignIns(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	km := keymap.DefaultKeyMap()
	rows := []SignInRow{
		{Resource: "https://api.github.com\x1b]52;c;AAAA\x07", Issuer: "https://github.com/login/oauth", Host: "wss://ahp.example.com:443", Scopes: []string{"repo", "read:org"}, Expiry: now.Add(90 * time.Minute)},
		{Resource: "https://mcp.example.com/deploy", Issuer: "https://auth.example.com", Scopes: nil, Expiry: now.Add(-time.Minute), Refreshable: true},
		{Resource: "https://third.example.com", Issuer: "https://auth.example.com", Host: "ws://127.0.0.1:4000"},
	}
	for _, tc := range []struct {
		w, h, sel int
		want      []string
	}{
		{100, 30, 0, []string{"▸ https://api.github.com", "issued by https://github.com/login/oauth · on host wss://ahp.example.com:443",
			"scopes: repo read:org · expires", "(in 1h30m0s)", "(not recorded)", "expired (renewable)", "no expiry given", "x forget and revoke", "note here"}},
		{60, 8, 2, []string{"▸ https://third.example.com"}},
	} {
		out := RenderSignIns(noColorTheme, km, rows, tc.sel, "note here", "", "", now, tc.w, tc.h)
		if strings.Contains(out, "\x1b]52") {
			t.Errorf("%dx%d: a host string reached the terminal raw", tc.w, tc.h)
		}
		plain := ansi.Strip(out)
		lines := strings.Split(plain, "\n")
		if len(lines) > tc.h {
			t.Errorf("%dx%d: %d lines", tc.w, tc.h, len(lines))
		}
		for i, l := range lines {
			if ansi.StringWidth(l) != tc.w {
				t.Errorf("%dx%d: line %d is %d wide", tc.w, tc.h, i, ansi.StringWidth(l))
			}
		}
		for _, want := range tc.want {
			if !strings.Contains(plain, want) {
				t.Errorf("%dx%d: no %q in:\n%s", tc.w, tc.h, want, plain)
			}
		}
	}
	if empty := ansi.Strip(RenderSignIns(noColorTheme, km, nil, 0, "", "", "", now, 80, 10)); !strings.Contains(empty, "No saved sign-ins") {
		t.Errorf("empty sheet:\n%s", empty)
	}
}

func TestRenderAsk(t *testing.T) {
	a := AskView{Title: "Use a saved sign-in?", Question: "Use your sign-in to X\x1b[2J (issued by Y) on host Z?",
		Lines: []string{"You signed in on W."}, Yes: "use it here", No: "do not"}
	out := RenderAsk(noColorTheme, keymap.DefaultKeyMap(), a, 70)
	plain := ansi.Strip(out)
	if strings.Contains(out, "\x1b[2J") {
		t.Error("host text not sanitized")
	}
	for _, want := range []string{"Use a saved sign-in?", "(issued by Y) on host Z?", "You signed in on W.", "y use it here", "n/esc do not"} {
		if !strings.Contains(plain, want) {
			t.Errorf("no %q in:\n%s", want, plain)
		}
	}
}
