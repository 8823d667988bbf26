package main

import (
	"flag"
	"log/slog"

	"github.com/ahptui/ahptui/authpkce"
)

// authOptions are the sign-in flags; they only configure authpkce.
type authOptions struct {
	tokenStore   string
	callbackPort int
	trustPKCE    bool
}

func (a *authOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&a.tokenStore, "token-store", authpkce.TokenStoreFile,
		"where sign-in tokens are kept: `file` (0600 file in the config dir) or keyring (the OS keyring, else the file)")
	fs.IntVar(&a.callbackPort, "callback-port", 0,
		"fixed 127.0.0.1 `PORT` the browser returns to after sign-in, so one ssh -L PORT:127.0.0.1:PORT serves every sign-in (default: a free port each time)")
	fs.BoolVar(&a.trustPKCE, "allow-unadvertised-pkce", false,
		"sign in at authorization servers whose metadata does not list PKCE S256 (refused by default)")
}

func (a authOptions) apply(c *authpkce.Config, logger *slog.Logger) {
	c.TokenStore = a.tokenStore
	c.CallbackPort = a.callbackPort
	c.TrustUnadvertisedPKCE = a.trustPKCE
	c.Logger = logger.With("component", "authpkce")
}
