package main

import (
	"flag"

	"github.com/ahptui/ahptui/authpkce"
)

// authOptions are the sign-in flags; they only configure authpkce.
type authOptions struct {
	tokenStore string
}

func (a *authOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&a.tokenStore, "token-store", authpkce.TokenStoreFile,
		"where sign-in tokens are kept: `file` (0600 file in the config dir) or keyring (the OS keyring, else the file)")
}

func (a authOptions) apply(c *authpkce.Config) {
	c.TokenStore = a.tokenStore
}
