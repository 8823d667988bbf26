package views

import (
	"strings"
	"time"

	"github.com/ahptui/ahptui/keymap"
)

// SignInsTitle is the title in the top border of RenderSignIns's frame.
const SignInsTitle = "Sign-ins"

// SignInRow is one saved grant as the sign-ins sheet lists it. Every field
// but Expiry may come from a host or an authorization server: sanitized
// when drawn.
type SignInRow struct {
	Resource string
	Issuer   string
	Host     string // where it was obtained; "" for a grant saved before hosts were recorded
	Scopes   []string
	Expiry   time.Time // zero: the server gave none
	// Refreshable: an expired grant may still be renewed without a browser.
	Refreshable bool
	// ByHand: a token the user gave (pasted, or from gh) that the host
	// holds now; it is not saved and lasts this run.
	ByHand bool
	// Saved: kept in the token store (for ByHand: the user chose to).
	Saved bool
}

// RenderSignIns draws the saved sign-ins, sel highlighted, as a sheet
// exactly width cells wide and at most height tall; note is what the last
// action did, forget what forgetting the selected one does on this host
// ("" to say nothing), asking the question forgetting waits on (""
// when none: then the sheet's own keys are offered). now dates the
// expiries.
func RenderSignIns(th Theme, k keymap.KeyMap, rows []SignInRow, sel int, note, forget, asking string, now time.Time, width, height int) string {
	row := func(i int) (string, []string) {
		r := rows[i]
		host := SanitizeLine(r.Host)
		if host == "" {
			host = "(not recorded)"
		}
		var scopes []string
		for _, s := range r.Scopes {
			if s = SanitizeLine(s); s != "" {
				scopes = append(scopes, s)
			}
		}
		if r.ByHand && r.Saved {
			return SanitizeLine(r.Resource), []string{
				"your token, kept · for " + SanitizeLine(r.Issuer) + " · on host " + host,
				"saved; pushed again when this host asks for it",
			}
		}
		if r.ByHand {
			return SanitizeLine(r.Resource), []string{
				"your token · on host " + host,
				"in use this run, not saved",
			}
		}
		detail := "no scopes"
		if len(scopes) > 0 {
			detail = "scopes: " + strings.Join(scopes, " ")
		}
		return SanitizeLine(r.Resource), []string{
			"issued by " + SanitizeLine(r.Issuer) + " · on host " + host,
			detail + " · " + expiryText(r.Expiry, r.Refreshable, now),
		}
	}
	tail := func(inner int) []string {
		var tail []string
		if f := SanitizeLine(forget); f != "" {
			tail = append(tail, wrapLines(th.Muted.Render(f), inner)...)
		}
		switch q := SanitizeLine(asking); {
		case q != "":
			tail = append(tail, wrapLines(th.Title.Render(q), inner)...)
			tail = append(tail, wrapLines(KeyHints(th, true, k.Confirm.Yes, "forget", k.Confirm.No, "keep"), inner)...)
		default:
			if n := SanitizeLine(note); n != "" {
				tail = append(tail, wrapLines(th.Info.Render(n), inner)...)
			}
			tail = append(tail, wrapLines(hintLine(th, k.SignIns.Up, k.SignIns.Down, k.SignIns.Forget, k.SignIns.Close), inner)...)
		}
		return tail
	}
	return renderListSheet(th, SignInsTitle, width, height, "No saved sign-ins. Signing in to a server from its prompt saves one here.", len(rows), sel, row, tail)
}

// expiryText says when a grant stops working, in words.
func expiryText(exp time.Time, refreshable bool, now time.Time) string {
	switch {
	case exp.IsZero():
		return "no expiry given"
	case !exp.After(now) && refreshable:
		return "expired (renewable)"
	case !exp.After(now):
		return "expired"
	}
	return "expires " + exp.Local().Format("2006-01-02 15:04") + " (in " + exp.Sub(now).Round(time.Minute).String() + ")"
}

// AskView is a yes/no question about a sign-in: using one here, or
// signing in at a server on a private address. Title and Lines name host
// strings; sanitized when drawn.
type AskView struct {
	Title    string
	Question string
	Lines    []string
	Yes, No  string // what each answer does
}

// RenderAsk draws an AskView as a dialog at most maxW wide.
func RenderAsk(th Theme, k keymap.KeyMap, a AskView, maxW int) string {
	w := min(maxW, dialogMaxWidth+12)
	inner := max(1, w-2)
	var body []string
	body = append(body, wrapLines(th.Text.Render(SanitizeLine(a.Question)), inner)...)
	for _, l := range a.Lines {
		body = append(body, wrapLines(th.Muted.Render(SanitizeLine(l)), inner)...)
	}
	body = append(body, "", KeyHints(th, true, k.Confirm.Yes, a.Yes, k.Confirm.No, a.No))
	return RenderDialog(th, SanitizeLine(a.Title), body, w, len(body)+2)
}
