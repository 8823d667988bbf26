package app

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ahptui/ahptui/authpkce"
)

// authOptions are the sign-in flags; they only configure authpkce.
type authOptions struct {
	tokenStore string
	// tokenStoreSet: --token-store was given, so a keyring that is not
	// there fails the start instead of falling back to the file.
	tokenStoreSet bool
	callbackPort  int
	trustPKCE     bool
	clients       oauthClients
}

// oauthClients is --oauth-client, repeatable: ISSUER=CLIENT_ID.
type oauthClients map[string]string

func (c *oauthClients) String() string { return "" }

func (c *oauthClients) Set(v string) error {
	iss, id, ok := strings.Cut(v, "=")
	if !ok || iss == "" || id == "" {
		return errors.New("want ISSUER=CLIENT_ID, e.g. https://github.com/login/oauth=Iv1.0123")
	}
	if *c == nil {
		*c = oauthClients{}
	}
	(*c)[iss] = id
	return nil
}

func (a *authOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&a.tokenStore, "token-store", authpkce.TokenStoreFile,
		"where sign-in tokens are kept: `file` (0600 file in the config dir) or keyring (the OS keyring; with none, ahptui stops)")
	fs.IntVar(&a.callbackPort, "callback-port", 0,
		"fixed 127.0.0.1 `PORT` the browser returns to after sign-in, so one ssh -L PORT:127.0.0.1:PORT serves every sign-in (default: a free port each time)")
	fs.Var(&a.clients, "oauth-client",
		"`ISSUER=CLIENT_ID` of an OAuth app you registered at that authorization server (a public client, loopback redirect), used where the host names none and the server offers no registration, e.g. GitHub's; repeatable")
	fs.BoolVar(&a.trustPKCE, "allow-unadvertised-pkce", false,
		"sign in at authorization servers whose metadata does not list PKCE S256 (refused by default)")
}

func (a authOptions) apply(c *authpkce.Config, logger *slog.Logger) {
	c.TokenStore = a.tokenStore
	c.CallbackPort = a.callbackPort
	c.TrustUnadvertisedPKCE = a.trustPKCE
	c.Clients = a.clients
	c.Logger = logger.With("component", "authpkce")
}

// openAuth opens the token store in dir. A --token-store keyring given
// on the command line with no OS keyring here fails the start: the user
// asked for their tokens not to sit in a file. Otherwise a fall-back to
// the file, and whatever was repaired in dir (StoreNotes), are returned
// as notes to show on screen.
func openAuth(acfg authpkce.Config, a authOptions, logger *slog.Logger) (*authpkce.Authenticator, []string, error) {
	auth, err := authpkce.New(acfg)
	if err != nil {
		return nil, nil, fmt.Errorf("sign-in setup: %w", err)
	}
	notes := auth.StoreNotes()
	if kind, why := auth.TokenStore(); why != nil {
		logger.Info("OS keyring unavailable; tokens are kept in the file", "store", kind, "reason", why.Error())
		reason := strings.Join(strings.Fields(why.Error()), " ")
		if a.tokenStoreSet {
			return nil, nil, errors.New("--token-store keyring: there is no OS keyring here (" + reason +
				"); start one (a Secret Service such as gnome-keyring) or pass --token-store file")
		}
		notes = append(notes, "no OS keyring here ("+reason+"): sign-in tokens are kept in the 0600 file")
	}
	return auth, notes, nil
}
