package authpkce

import (
	"fmt"
	"slices"
)

// HandClient is the client id a token given by hand (pasted, or from
// gh) is saved under: no OAuth client obtained it, so Forget revokes it
// nowhere but on the host. Real client ids never hold its spaces and
// parentheses.
const HandClient = "(given by hand)"

// KeepHandToken saves a token the user gave by hand and the host
// accepted, after the user agreed to keep it, under the binding rules of
// every saved grant: the host it was given on (HostID) and the resource
// and authorization server the host advertised for it (w), so Lookup
// pushes it again only there, or asks first on another host. A host that
// names no authorization server for the resource gives nothing to bind
// the token to: it is not saved.
func (a *Authenticator) KeepHandToken(host string, w Want, token string) error {
	hid, err := HostID(host)
	if err != nil {
		return err
	}
	switch {
	case w.Resource == "":
		return fmt.Errorf("%w: no resource to keep the token for", ErrInvalidRequirement)
	case w.Issuer == "":
		return fmt.Errorf("%w: the host names no authorization server for %s, so the token cannot be bound to one; it stays for this run", ErrInvalidRequirement, clean(w.Resource))
	}
	if err := CheckHandToken(token); err != nil {
		return err
	}
	k := tokenKey{Host: hid, Issuer: w.Issuer, Resource: w.Resource, ClientID: HandClient}
	return a.store.putToken(k, Token{AccessToken: token, TokenType: "Bearer", Scopes: slices.Clone(w.Scopes)}, a.now())
}
