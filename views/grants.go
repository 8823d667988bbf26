package views

import (
	"cmp"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/keymap"
)

// GrantPhase is where an inline "grant additional access" prompt stands.
type GrantPhase int

const (
	// GrantOffered: the tool call or MCP server needs a token; the user has
	// not acted yet.
	GrantOffered GrantPhase = iota
	// GrantWaiting: the OAuth flow runs and waits for the user to approve
	// in the browser.
	GrantWaiting
	// GrantSucceeded: a token was obtained and pushed with authenticate.
	GrantSucceeded
	// GrantFailed: the flow failed or was refused; Err says why.
	GrantFailed
	// GrantCancelled: the user cancelled the sign-in; not a failure, and
	// accepting again starts over.
	GrantCancelled
)

// GrantView is what the UI knows about one OAuth grant it offers or runs.
// Resource, Reason, Scopes and Description come from the host's
// McpAuthRequirement and are sanitized when rendered; URL is the
// authorization URL the client built (it embeds host-chosen values, so it is
// sanitized too), Err is the client's own failure text.
type GrantView struct {
	// Advice, when set, replaces a failed sign-in's browser advice: what
	// to do about the cause it failed on (an unreachable server is not
	// the browser's fault).
	Advice      string
	Phase       GrantPhase
	Resource    string   // the protected resource, e.g. "https://mcp.example.com/deploy"
	Reason      string   // McpAuthRequiredReason: "required", "expired", "insufficientScope"
	Scopes      []string // scopes the challenge asks for
	Description string   // the host's hint, typically the OAuth error_description
	URL         string   // authorization URL, while Waiting
	// BrowserOpened says whether opening the browser worked; when it did
	// not, the user must copy URL by hand.
	BrowserOpened bool
	// BrowserDisabled says the user asked for no browser (--no-browser):
	// opening the URL by hand is the plan, not a failure.
	BrowserDisabled bool
	Err             string // why it failed, when Failed
	// Reach, when set, replaces the accept/decline hints: those keys do not
	// work from where the user is, and Reach says how to get there.
	Reach string
	// Dismiss: the decline key puts the prompt away rather than refusing
	// (an agent's own sign-in, which comes back while the agent needs
	// it): its hint says "dismiss", as the footer does (issue 36).
	Dismiss bool
	// Server is the host of the page the user signs in on (the
	// authorization endpoint's or the device verification page's), named
	// before the user consents there (a host chooses it; sanitized when
	// drawn).
	Server string
	// Issuer is the authorization server the host named (its issuer URL),
	// which receives what the user approves; the sheet always names it.
	// ServerIsIssuer: Server is on the issuer's own origin. A device page
	// elsewhere is drawn with a warning naming both (a hostile server can
	// relay a real provider's device code).
	Issuer         string
	ServerIsIssuer bool
	// OriginWarning is authpkce's warning for a page off the issuer's
	// origin (Grant.OtherOrigin), the words auth login uses too; drawn
	// for a device page.
	OriginWarning string
	// Device, for a device grant (RFC 8628), is the code to enter and where.
	Device *DeviceView
	// DeviceOffered: the authorization server offers a device grant too;
	// the sheet names the key that switches to it.
	DeviceOffered bool
	// Pasting: the field for the address the browser landed on is open,
	// holding Pasted; PasteErr is why the last one was refused.
	Pasting  bool
	Pasted   string
	PasteErr string
	// PasteTail is how many cells of Pasted lie after the field's cursor;
	// 0 puts it at the end.
	PasteTail int
	// Note is what the last key in the overlay did (e.g. the copy key),
	// said where the user is looking.
	Note string
	// Offers, when set, replaces an offered prompt's accept/decline hints:
	// an agent's own sign-in offers more ways to a token
	// (RenderAgentSignInOffers).
	Offers []string
}

// DeviceView is a device grant's user code and verification address.
type DeviceView struct {
	UserCode, VerificationURI string
}

// browserDisabledText asks a --no-browser user to open the sign-in URL.
const browserDisabledText = "Open this URL in a browser:"

// hintKeys is the binding set the views name in their inline hints. Hints are
// rendered from the bindings, so help text and hints cannot disagree.
var hintKeys = keymap.DefaultKeyMap()

// hintLine renders "key desc · key desc" for bindings, or "" when none.
// declineKey is the decline key as this prompt says it.
func (g GrantView) declineKey() key.Binding {
	b := hintKeys.Grant.Decline
	if g.Dismiss {
		b.SetHelp(b.Help().Key, "dismiss")
	}
	return b
}

func hintLine(th Theme, bindings ...key.Binding) string {
	var parts []string
	for _, b := range bindings {
		if !b.Enabled() {
			continue
		}
		h := b.Help()
		parts = append(parts, th.HelpKey.Render(h.Key)+" "+th.HelpDesc.Render(h.Desc))
	}
	return strings.Join(parts, th.Subtle.Render(" · "))
}

// reasonText says in words why a resource needs a grant.
func reasonText(reason string, scopes []string) string {
	switch reason {
	case "insufficientScope":
		if len(scopes) > 0 {
			return "needs additional permission: " + strings.Join(scopes, ", ")
		}
		return "needs additional permission"
	case "expired":
		return "sign-in has expired and must be renewed"
	case "required", "":
		return "requires you to sign in"
	}
	return "requires authorization (" + reason + ")"
}

// RenderGrant draws the "grant additional access" prompt, framed, exactly
// width cells wide. While Waiting the authorization URL is shown in full,
// hard-wrapped so every character is visible and can be copied from a
// terminal without a browser (the SSH case).
func RenderGrant(th Theme, g GrantView, width int) string {
	if width < 8 {
		width = 8
	}
	inner := width - th.GrantBox.GetHorizontalFrameSize()
	if inner < 1 {
		inner = 1
	}
	return th.GrantBox.Width(width).Render(strings.Join(grantLines(th, g, inner), "\n"))
}

// grantLines is the prompt's content without its frame, inner cells wide.
func grantLines(th Theme, g GrantView, inner int) []string {
	var lines []string
	add := func(style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, inner) {
			lines = append(lines, style.Render(l))
		}
	}
	resource := SanitizeLine(g.Resource)
	if resource == "" {
		resource = "this server"
	}
	scopes := make([]string, 0, len(g.Scopes))
	for _, s := range g.Scopes {
		if s = SanitizeLine(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	switch g.Phase {
	case GrantOffered:
		add(th.GrantTitle, "⚠ Grant additional access")
		add(th.Text, resource+" "+reasonText(SanitizeLine(g.Reason), scopes))
		if srv := SanitizeLine(g.Server); srv != "" {
			add(th.Muted, "sign in at: "+srv)
		}
		if len(scopes) > 0 && g.Reason != "insufficientScope" {
			add(th.Muted, "scopes: "+strings.Join(scopes, ", "))
		}
		if d := Sanitize(g.Description); strings.TrimSpace(d) != "" {
			add(th.Muted, d)
		}
		switch {
		case g.Reach != "":
			lines = append(lines, reachLines(th, g.Reach, inner)...)
		case len(g.Offers) > 0:
			for _, o := range g.Offers {
				lines = append(lines, wrapLines(o, inner)...)
			}
		default:
			lines = append(lines, wrapLines(hintLine(th, hintKeys.Grant.Accept, g.declineKey()), inner)...)
		}
	case GrantWaiting:
		add(th.GrantTitle, "◌ Waiting for you to approve in the browser…")
		add(th.Muted, "resource: "+resource)
		switch {
		case g.BrowserOpened:
			add(th.Text, "A browser window was opened. If it is not the right one, open this URL:")
		case g.BrowserDisabled:
			add(th.Text, browserDisabledText)
		default:
			add(th.Warning, "Could not open a browser. Open this URL yourself:")
		}
		// Hard-wrap, never word-wrap or truncate: a URL has no spaces to
		// break at, and the user must be able to copy every character.
		if strings.TrimSpace(g.URL) == "" {
			add(th.Muted, "(the sign-in URL is not ready yet)")
		}
		lines = append(lines, urlLines(th, g.URL, inner)...)
		lines = append(lines, wrapLines(hintLine(th, hintKeys.Grant.Cancel, hintKeys.Grant.CopyURL), inner)...)
	case GrantSucceeded:
		add(th.Success, "✓ access granted")
		add(th.Muted, resource)
	case GrantFailed:
		msg := SanitizeLine(g.Err)
		if msg == "" {
			msg = "sign-in did not complete"
		}
		add(th.Error, "✗ access not granted: "+msg)
		if a := SanitizeLine(g.Advice); a != "" {
			add(th.Muted, a)
		} else {
			add(th.Muted, "Check the account and permissions in the browser, then try again.")
		}
		if g.Reach != "" {
			lines = append(lines, reachLines(th, g.Reach, inner)...)
		} else {
			lines = append(lines, wrapLines(hintLine(th, retryBinding(), g.declineKey()), inner)...)
		}
	case GrantCancelled:
		add(th.Muted, "sign-in cancelled")
		if g.Reach != "" {
			lines = append(lines, reachLines(th, g.Reach, inner)...)
		} else {
			lines = append(lines, wrapLines(hintLine(th, retryBinding(), g.declineKey()), inner)...)
		}
	default:
		add(th.Muted, "grant: unknown state")
	}
	return lines
}

// urlLines hard-wraps a URL at width, never word-wrapping or truncating:
// a URL has no spaces to break at, and the user must be able to copy every
// character of it from the terminal.
//
// Each row is also a terminal hyperlink (OSC 8) to the whole URL, where it
// is one a link may carry (SignInLink): a terminal that supports them
// opens or copies the URL from any of its rows, whole, despite the breaks.
func urlLines(th Theme, url string, width int) []string {
	link := SignInLink(url)
	url = SanitizeLine(url)
	var lines []string
	for url != "" {
		piece := ansi.Cut(url, 0, width)
		if piece == "" { // a wide rune wider than the box
			piece = ansi.Cut(url, 0, width+1)
		}
		if piece == "" {
			break
		}
		row := th.GrantURL.Render(piece)
		if link != "" {
			row = ansi.SetHyperlink(link, "id="+linkID(link)) + row + ansi.ResetHyperlink()
		}
		lines = append(lines, row)
		url = url[len(piece):]
	}
	return lines
}

// retryBinding is the accept key described as what it does after a failure.
func retryBinding() key.Binding {
	b := hintKeys.Grant.Accept
	b.SetHelp(b.Help().Key, "try again")
	return b
}

// wrapLines word-wraps s (already sanitized, possibly styled) to width,
// breaking words longer than a line, and splits it into lines.
func wrapLines(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	if s == "" {
		return nil
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// GrantOverlayTitle is the title in the top border of RenderGrantOverlay's
// frame, so tests and users can find the sheet.
const GrantOverlayTitle = "Sign in"

// RenderGrantOverlay draws a Waiting grant as a sheet exactly width cells
// wide and at most height lines tall, meant to cover the screen's full
// width. An inline prompt in a narrow chat panel hard-wraps a sign-in URL
// over more lines than a small terminal (80×24, a common SSH default) shows
// at once; here the URL wraps at the terminal's width, less the two border
// cells, so it is whole on screen. Its rows carry no border and nothing
// else: a triple-click or a drag over them copies the URL and only the
// URL (the SSH case, where no browser opens here). When height is short,
// the explanatory lines go first: the URL and the keys are what the user
// cannot do without.
func RenderGrantOverlay(th Theme, g GrantView, width, height int) string {
	width = max(width, 8)
	inner := width - 2
	resource := SanitizeLine(g.Resource)
	if resource == "" {
		resource = "this server"
	}
	var head []string
	add := func(dst *[]string, style lipgloss.Style, s string) {
		for _, l := range wrapLines(s, inner) {
			*dst = append(*dst, style.Render(l))
		}
	}
	add(&head, th.GrantTitle, "◌ Waiting for you to approve in the browser…")
	// Who receives the approval comes before what may be cut on a short
	// sheet: it is what the user must know before entering a code.
	if line, warn := serverLine(g); warn {
		add(&head, th.Warning, line)
	} else if line != "" {
		add(&head, th.Text, line)
	}
	add(&head, th.Muted, "resource: "+resource)
	var url []sheetRow
	if d := g.Device; d != nil {
		add(&head, th.Text, "On any device, open this address and enter the code "+th.Title.Render(SanitizeLine(d.UserCode))+":")
		url = bareRows(urlLines(th, d.VerificationURI, inner))
	} else {
		switch {
		case g.BrowserOpened:
			add(&head, th.Text, "A browser window was opened. If it is not the right one, open this URL:")
		case g.BrowserDisabled:
			add(&head, th.Text, browserDisabledText)
		default:
			add(&head, th.Warning, "Could not open a browser. Open this URL yourself:")
		}
		url = bareRows(urlLines(th, g.URL, inner))
	}
	if len(url) == 0 {
		var l []string
		add(&l, th.Muted, "(the sign-in URL is not ready yet)")
		url = framedRows(l)
	}
	var tail []string
	if g.Pasting {
		add(&tail, th.Text, "Paste the address your browser landed on (it starts with the redirect URI):")
		tail = append(tail, Fit(th.HelpKey.Render("> ")+fieldLine(th, SanitizeLine(g.Pasted), g.PasteTail, inner-2), inner))
		if e := SanitizeLine(g.PasteErr); e != "" {
			add(&tail, th.Error, e)
		}
		tail = append(tail, wrapLines(hintLine(th, hintKeys.Paste.Submit, hintKeys.Paste.Cancel), inner)...)
	} else {
		if n := SanitizeLine(g.Note); n != "" {
			add(&tail, th.Muted, n)
		}
		hints := []key.Binding{hintKeys.Grant.Cancel, hintKeys.Grant.CopyURL, hintKeys.Grant.ShowURL}
		if g.Device == nil {
			hints = append(hints, hintKeys.Grant.Paste)
		}
		if g.DeviceOffered {
			hints = append(hints, hintKeys.Grant.Device)
		}
		hints = append(hints, hintKeys.Grant.Token)
		tail = append(tail, wrapLines(hintLine(th, hints...), inner)...)
	}
	// The first hint line (cancel, copy) stays on a short sheet; the
	// others go before the URL would.
	if over := len(url) + len(tail) - (height - 2); over > 0 && !g.Pasting {
		tail = tail[:max(1, len(tail)-over)]
	}
	room := max(0, height-2-len(url)-len(tail))
	if len(head) > room {
		head = head[:room]
	}
	rows := append(append(framedRows(head), url...), framedRows(tail)...)
	return renderSheet(th, GrantOverlayTitle, rows, inner)
}

// serverLine names where the user signs in and the authorization server
// the host named; warn is set for a device page on another origin.
func serverLine(g GrantView) (line string, warn bool) {
	srv, iss := SanitizeLine(g.Server), SanitizeLine(g.Issuer)
	switch {
	case iss == "" && srv == "":
		return "", false
	case iss == "":
		return "You sign in at " + srv + ".", false
	case srv == "" || g.ServerIsIssuer:
		return "You sign in at " + cmp.Or(srv, iss) + ", the authorization server the host names (" + iss + ").", false
	case g.Device != nil && g.OriginWarning != "":
		return "⚠ " + SanitizeLine(g.OriginWarning), true
	}
	return "You sign in at " + srv + " for the authorization server the host names (" + iss + ").", false
}

// fieldLine draws one line of an input field, s with the cursor tail
// cells before its end, at most w cells wide: a window of s that holds the
// cursor ("…" where it cuts), the cursor a block at the end or the cell
// under it in reverse video.
func fieldLine(th Theme, s string, tail, w int) string {
	w = max(w, 2)
	n := ansi.StringWidth(s)
	at := n - max(0, min(tail, n))
	room := w - 1 // the cells of s shown; one is the cursor's at the end
	if at < n {
		room = w
	}
	from := 0
	if at >= room {
		from = at - room + 1
	}
	if at == n {
		from = max(0, n-room)
	}
	to := min(n, from+room)
	head, cur, rest := ansi.Cut(s, from, at), ansi.Cut(s, at, at+1), ansi.Cut(s, at+1, to)
	if from > 0 && head != "" {
		head = "…" + ansi.Cut(head, 1, ansi.StringWidth(head))
	}
	if to < n && rest != "" {
		rest = ansi.Cut(rest, 0, ansi.StringWidth(rest)-1) + "…"
	}
	if at == n {
		return th.Text.Render(head) + "█"
	}
	return th.Text.Render(head) + lipgloss.NewStyle().Reverse(true).Render(cur) + th.Text.Render(rest)
}

// sheetRow is one row of a full-width sheet; a bare row is drawn without
// the side borders, so selecting it copies nothing but its text.
type sheetRow struct {
	text string
	bare bool
}

func framedRows(lines []string) []sheetRow {
	out := make([]sheetRow, len(lines))
	for i, l := range lines {
		out[i] = sheetRow{text: l}
	}
	return out
}

func bareRows(lines []string) []sheetRow {
	out := make([]sheetRow, len(lines))
	for i, l := range lines {
		out[i] = sheetRow{text: l, bare: true}
	}
	return out
}

// renderSheet frames rows inner cells wide under title, in the focused
// panel style, leaving a bare row's border cells blank.
func renderSheet(th Theme, title string, rows []sheetRow, inner int) string {
	st := th.PanelFocused
	b := st.GetBorderStyle()
	bc := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
	t := th.PanelTitleFocused.Render(title)
	top := b.TopLeft + b.Top + " "
	out := make([]string, 0, len(rows)+2)
	out = append(out, bc.Render(top)+t+bc.Render(" "+strings.Repeat(b.Top, max(0, inner-3-lipgloss.Width(t)))+b.TopRight))
	left, right := bc.Render(b.Left), bc.Render(b.Right)
	for _, r := range rows {
		l, rt := left, right
		if r.bare {
			l, rt = " ", " "
		}
		out = append(out, l+Fit(r.text, inner)+rt)
	}
	out = append(out, bc.Render(b.BottomLeft+strings.Repeat(b.Bottom, inner)+b.BottomRight))
	return strings.Join(out, "\n")
}
