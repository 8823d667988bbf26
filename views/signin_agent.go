package views

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/ahptui/ahptui/keymap"
)

// AgentSignIn is what the UI knows of an agent's own sign-in (its
// required protectedResources): which ways to a token it can offer and
// where a token pushed by hand stands.
type AgentSignIn struct {
	OAuth bool // the resource names an authorization server ahptui can use
	Gh    bool // a GitHub resource, and gh is installed
	// Busy says a token is on its way ("gh" runs, or the host checks it).
	Busy string
	// Err is why the last token did not serve (ahptui's own text, which
	// may quote the host: sanitized when drawn).
	Err string
}

// RenderAgentSignInNeeded is the session header's line while the open
// session's agent needs a sign-in no token serves yet: named before the
// first message, so no turn has to fail to say it. names are host text.
func RenderAgentSignInNeeded(th Theme, names []string, w int) string {
	clean := make([]string, 0, len(names))
	for _, n := range names {
		if n = SanitizeLine(n); n != "" {
			clean = append(clean, n)
		}
	}
	if len(clean) == 0 {
		return ""
	}
	return Fit(th.Warning.Bold(true).Render("⚠ sign-in needed: ")+
		th.Text.Render(strings.Join(clean, ", "))+
		th.Muted.Render(" · messages fail until you sign in (the prompt below; t pastes a token)"), w)
}

// RenderAgentSignInOffers is an agent sign-in prompt's hint lines: every
// way to a token it can offer, and what the last one did.
func RenderAgentSignInOffers(th Theme, km keymap.KeyMap, a AgentSignIn) []string {
	var lines []string
	if a.Busy != "" {
		lines = append(lines, th.Info.Render("◌ "+SanitizeLine(a.Busy)))
	}
	if a.Err != "" {
		lines = append(lines, th.Error.Render("✗ "+SanitizeLine(a.Err)))
	}
	// The ways that work, first the one enter takes: gh's token, a
	// browser sign-in (only where one can succeed), pasting a token.
	var pairs []any
	enter := "enter"
	if ks := km.Grant.Accept.Keys(); len(ks) > 0 {
		enter = ks[0]
	}
	first := true
	add := func(b key.Binding, what string) {
		if first {
			b.SetHelp(enter+"/"+b.Help().Key, b.Help().Desc)
			first = false
		}
		pairs = append(pairs, b, what)
	}
	if a.Gh {
		add(km.Grant.GhToken, "use gh auth token")
	}
	if a.OAuth {
		browser := km.Grant.Accept
		browser.SetHelp(strings.TrimPrefix(strings.TrimPrefix(browser.Help().Key, enter), "/"), browser.Help().Desc)
		if first {
			browser = km.Grant.Accept
		}
		first = false
		pairs = append(pairs, browser, "sign in (browser)")
	}
	add(km.Grant.Token, "paste a token")
	pairs = append(pairs, km.Grant.Decline, "dismiss")
	return append(lines, KeyHints(th, true, pairs...))
}

// RenderTokenField is the masked field a token is pasted into: input is
// the field as drawn (its mask, never the token).
func RenderTokenField(th Theme, km keymap.KeyMap, input string, w int) []string {
	return []string{
		Fit(th.Text.Render("Token: ")+input, w),
		Fit(KeyHints(th, true, km.Paste.Submit, "push it to the host", km.Paste.Cancel, "back")+
			th.Muted.Render(" · kept in memory for this run, never shown or logged"), w),
	}
}

// TokenSheetTitle is the title of the sheet a token for an MCP server's
// sign-in is pasted into.
const TokenSheetTitle = "Sign in with a token"

// RenderTokenSheet draws the masked token field for resource as a sheet
// width cells wide: the paste route of an MCP server's sign-in, where no
// agent prompt in the chat holds the field.
func RenderTokenSheet(th Theme, km keymap.KeyMap, resource, input string, width int) string {
	width = max(width, 20)
	inner := width - 2
	var rows []sheetRow
	for _, l := range wrapLines("Paste a token for "+SanitizeLine(resource)+"; it is pushed to the host for that resource.", inner) {
		rows = append(rows, sheetRow{text: th.Text.Render(l)})
	}
	for _, l := range RenderTokenField(th, km, input, inner) {
		rows = append(rows, sheetRow{text: l})
	}
	return renderSheet(th, TokenSheetTitle, rows, inner)
}
