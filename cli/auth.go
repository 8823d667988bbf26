package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/host/saved"
)

// grantJSON is one saved sign-in in `ahptui auth list|status --json`.
type grantJSON struct {
	Resource    string   `json:"resource"`
	Host        *hostRef `json:"host,omitempty"` // where it was obtained (absent for an old grant)
	Issuer      string   `json:"issuer"`
	Scopes      []string `json:"scopes"`
	Expiry      string   `json:"expiry,omitempty"` // RFC 3339; absent when the server gave none
	Valid       bool     `json:"valid"`            // not expired now
	Refreshable bool     `json:"refreshable"`      // a refresh token may renew it
}

// openAuth opens the token store in the config dir, as the UI does.
func (a *app) openAuth() (*authpkce.Authenticator, error) {
	dir, err := pick.ConfigDir(a.configDir)
	if err != nil {
		return nil, err
	}
	if _, err := authpkce.PrivateDir(dir); err != nil {
		return nil, fmt.Errorf("config directory: %w", err)
	}
	auth, err := authpkce.New(authpkce.Config{Dir: dir, TokenStore: a.tokenStoreOr()})
	if err != nil {
		return nil, withCode(ExitSignIn, fmt.Errorf("sign-in store: %w", err))
	}
	return auth, nil
}

// tokenStoreOr is --token-store, the file by default.
func (a *app) tokenStoreOr() string {
	if a.tokenStore == "" {
		return authpkce.TokenStoreFile
	}
	return a.tokenStore
}

// grantHosts names the host a grant was obtained on as every command
// names a host: {name, url}, the name a saved host's whose address it is
// (nil for an old grant, which names none). hosts.yml is read once; one
// that cannot be read names no host here (the commands that use it say
// why).
func (a *app) grantHosts() func(url string) *hostRef {
	var known []saved.Host
	if dir, err := pick.ConfigDir(a.configDir); err == nil {
		known, _ = saved.Load(dir)
	}
	return func(url string) *hostRef {
		if url == "" {
			return nil
		}
		ref := &hostRef{URL: url}
		for _, h := range known {
			if sameHostURL(h.URL, url) {
				ref.Name = h.Name
				break
			}
		}
		return ref
	}
}

// sameHostURL says whether two spellings of a host's address name the
// same host: the same URL but for a trailing slash on an empty path.
func sameHostURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

func (a *app) grantsOf(auth *authpkce.Authenticator, now time.Time) []grantJSON {
	out := []grantJSON{}
	hostOf := a.grantHosts()
	for _, g := range auth.Grants() {
		j := grantJSON{Resource: g.Resource, Host: hostOf(g.Host), Issuer: g.Issuer, Scopes: g.Scopes, Refreshable: g.Refreshable,
			Valid: g.Expiry.IsZero() || now.Before(g.Expiry)}
		if j.Scopes == nil {
			j.Scopes = []string{}
		}
		if !g.Expiry.IsZero() {
			j.Expiry = g.Expiry.UTC().Format(time.RFC3339)
		}
		out = append(out, j)
	}
	return out
}

func authCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "the saved sign-ins: list them, see what is valid, sign out",
	}
	cmd.PersistentFlags().StringVar(&a.tokenStore, "token-store", authpkce.TokenStoreFile, "where sign-in tokens are kept, `STORE`: file or keyring")
	list := func(use, short string, status bool) *cobra.Command {
		return &cobra.Command{
			Use:   use,
			Short: short,
			Args:  args(0, 0, "no arguments"),
			RunE: func(*cobra.Command, []string) error {
				auth, err := a.openAuth()
				if err != nil {
					return err
				}
				now := time.Now()
				gs := a.grantsOf(auth, now)
				return a.emit(gs, func(w io.Writer) { a.printGrants(w, gs, status, now) })
			},
		}
	}
	cmd.AddCommand(list("list", "every saved sign-in: resource, host, issuer, scopes", false),
		list("status", "which saved sign-ins are valid, until when, and renewable", true),
		logoutCmd(a), loginCmd(a))
	return cmd
}

func (a *app) printGrants(w io.Writer, gs []grantJSON, status bool, now time.Time) {
	if len(gs) == 0 {
		fmt.Fprintln(w, "no saved sign-ins")
		return
	}
	rows := make([][]string, len(gs))
	for i, g := range gs {
		host := "(any)"
		if g.Host != nil {
			host = g.Host.display()
		}
		if !status {
			rows[i] = []string{hostText(g.Resource), hostText(host), hostText(g.Issuer), hostText(strings.Join(g.Scopes, " "))}
			continue
		}
		state, until := "valid", "no expiry given"
		if !g.Valid {
			state = "expired"
		}
		if g.Expiry != "" {
			until = g.Expiry
		}
		renew := "no"
		if g.Refreshable {
			renew = "yes"
		}
		rows[i] = []string{hostText(g.Resource), hostText(host), state, until, renew}
	}
	if status {
		a.table(w, []string{"RESOURCE", "HOST", "STATE", "UNTIL", "RENEWABLE"}, rows)
		return
	}
	a.table(w, []string{"RESOURCE", "HOST", "ISSUER", "SCOPES"}, rows)
}

// loggedOutJSON is one grant auth logout forgot.
type loggedOutJSON struct {
	Resource string   `json:"resource"`
	Host     *hostRef `json:"host,omitempty"`
	Revoked  bool     `json:"revoked"`          // the authorization server accepted the revocation
	Error    string   `json:"error,omitempty"`  // why it did not, when it did not
	OnHost   bool     `json:"onHost,omitempty"` // the host may still hold the token (sign out there from the UI)
}

func logoutCmd(a *app) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "logout (RESOURCE | --all)",
		Short: "forget saved sign-ins and revoke their tokens",
		Long: `Forgets the saved sign-ins for RESOURCE (every host's), or all of them, and
revokes their tokens where the authorization server allows it, as the
UI's sign-ins sheet (S, then x) does. The grant is forgotten even when
revocation fails; the output says so.`,
		Args: func(cmd *cobra.Command, argv []string) error {
			if all {
				return args(0, 0, "no RESOURCE with --all")(cmd, argv)
			}
			return args(1, 1, "RESOURCE (or --all)")(cmd, argv)
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			auth, err := a.openAuth()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), a.timeout)
			defer cancel()
			out := []loggedOutJSON{}
			hostOf := a.grantHosts()
			for _, g := range auth.Grants() {
				if !all && g.Resource != argv[0] {
					continue
				}
				f, err := auth.Forget(ctx, g)
				if err != nil {
					return withCode(ExitSignIn, fmt.Errorf("sign out of %s: %w", hostText(g.Resource), err))
				}
				j := loggedOutJSON{Resource: g.Resource, Host: hostOf(g.Host), Revoked: f.Revoked, OnHost: f.ClearOnHost}
				if f.RevokeErr != nil {
					j.Error = f.RevokeErr.Error()
				}
				out = append(out, j)
			}
			if len(out) == 0 && !all {
				return notFoundf("no saved sign-in for %s (ahptui auth list shows them)", views_quote(argv[0]))
			}
			return a.emit(out, func(w io.Writer) {
				if len(out) == 0 {
					fmt.Fprintln(w, "no saved sign-ins")
				}
				for _, j := range out {
					word := "signed out of " + hostText(j.Resource)
					if j.Revoked {
						word += " (revoked)"
					} else if j.Error != "" {
						word += " (not revoked: " + hostText(j.Error) + ")"
					}
					fmt.Fprintln(w, word)
				}
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "every saved sign-in")
	return cmd
}
