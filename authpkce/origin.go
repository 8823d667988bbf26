package authpkce

// OriginWarning is what the user must read before acting on a sign-in page
// at page (a host[:port]) that is not on the origin of issuer, the
// authorization server the host named: issuer gets what they approve
// there, whatever page they approve it on. A hostile authorization
// server can relay a real provider's device code (or send the browser to
// a real provider's page), and the user, seeing the real provider,
// approves a token for it. device says the page takes a user code. The
// UI's sign-in sheet and the commands' auth login both say this; it
// names both origins.
func OriginWarning(page, issuer string, device bool) string {
	page, issuer = clean(page), clean(issuer)
	act := "sign in there"
	if device {
		act = "enter the code"
	}
	return page + " is not the authorization server the host names (" + issuer + "). " +
		issuer + " gets what you approve there: " + act + " only if you expected to sign in at " + page + " for it."
}

// OtherOrigin is OriginWarning for g when the page the user signs in on
// (ServerHost) is not on the issuer's origin, else "": the check and the
// words both front-ends use. Empty for a grant answered from the cache.
func (g *Grant) OtherOrigin() string {
	if g.onIssuer || g.issuer == "" || g.serverHost == "" {
		return ""
	}
	return OriginWarning(g.serverHost, g.issuer, g.device != nil)
}
