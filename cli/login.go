package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/host/pick"
	"github.com/ahptui/ahptui/protocol"
)

// loginJSON is what auth login prints.
type loginJSON struct {
	Resource string   `json:"resource"`
	Issuer   string   `json:"issuer"`
	Scopes   []string `json:"scopes"`
	Expiry   string   `json:"expiry,omitempty"`
	// ByHand: the token was given by hand (--with-token, --gh) and the
	// host accepted it; it is not saved (see auth login --help).
	ByHand bool `json:"byHand,omitempty"`
}

// loginTimeout bounds a sign-in when --timeout is not given: a person
// has to act in a browser.
const loginTimeout = 10 * time.Minute

func loginCmd(a *app) *cobra.Command {
	var session string
	var noBrowser, device, paste, withToken, gh, otherOrigin bool
	var allow []string
	cmd := &cobra.Command{
		Use:   "login RESOURCE",
		Short: "sign in to a resource the host asks a token for, and push it",
		Long: `Signs in to RESOURCE, a protected resource the host names (an agent's, or
an MCP server's that waits for sign-in: ahptui mcp list shows its
resource), the way the UI does: the authorization code flow with PKCE
through the browser and a loopback redirect (the URL is printed on
stderr; --no-browser prints it only), or --device for the device grant
(a code to enter). With --paste it reads, from stdin, the address the
browser landed on, for a browser on another machine whose redirect to
127.0.0.1 reached nothing (over SSH). The grant is saved as the UI
saves it, and pushed to the host; later commands push it again on their
own connections.

A resource whose authorization server this client cannot sign in with
(VS Code's copilotcli agent names github.com, which registers no
clients) takes a token given by hand, as the UI's agent prompt does:
--with-token reads it from stdin, --gh takes it from gh auth token (a
GitHub resource only). The host's answer is checked. Such a token has
no issuer or expiry to bind a saved grant to, so, as in the UI, it is
not saved: a host that keeps tokens per connection (the demo does)
forgets it when the command ends.`,
		Args: args(1, 1, "RESOURCE"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if n := countTrue(paste, device, withToken, gh); n > 1 {
				return usagef("--paste, --device, --with-token and --gh: pick one")
			}
			if paste {
				noBrowser = true
			}
			if !cmd.Flags().Changed("timeout") {
				a.timeout = loginTimeout
			}
			return a.connected(cmd.Context(), func(ctx context.Context, c *conn) error {
				req, advertised, err := findRequirement(ctx, c, session, argv[0])
				if err != nil {
					return err
				}
				if withToken || gh {
					return a.pushByHand(ctx, c, req, gh)
				}
				cfg := authpkce.Config{MemoryOnly: a.demo, TokenStore: a.tokenStoreOr()}
				if !a.demo { // the demo keeps tokens in memory, as in the UI
					if cfg.Dir, err = pick.ConfigDir(a.configDir); err != nil {
						return err
					}
				}
				open := authpkce.OpenSystemBrowser
				if noBrowser {
					open = func(string) error { return errors.New("--no-browser") }
				}
				// The browser opens only once the page is known to be on
				// the issuer's origin (or --allow-other-origin said so).
				gate := make(chan bool, 1)
				cfg.OpenBrowser = func(u string) error {
					if !<-gate {
						return errors.New("not opened: the sign-in page is not on the issuer's origin")
					}
					return open(u)
				}
				auth, err := authpkce.New(cfg)
				if err != nil {
					return withCode(ExitSignIn, err)
				}
				return a.login(ctx, c, auth, loginRequest{req: req, advertised: advertised, allow: allow, otherOrigin: otherOrigin, gate: gate}, device, paste)
			})
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the `SESSION` whose MCP server asks for RESOURCE (default: every session)")
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the sign-in URL; do not open a browser")
	cmd.Flags().BoolVar(&device, "device", false, "use the device grant: a code to enter on another device")
	cmd.Flags().BoolVar(&paste, "paste", false, "read the address the browser lands on from stdin (implies --no-browser)")
	cmd.Flags().StringSliceVar(&allow, "allow-server", nil, "sign in at `HOST[:PORT]` though it is on a private or loopback address (as the UI asks)")
	cmd.Flags().BoolVar(&otherOrigin, otherOriginFlag, false, "sign in on a page (browser or device) that is not on the origin of the authorization server the host names")
	cmd.Flags().BoolVar(&withToken, "with-token", false, "push a token read from stdin (not saved)")
	cmd.Flags().BoolVar(&gh, "gh", false, "push the token gh auth token prints, for a GitHub resource (not saved)")
	return cmd
}

// findRequirement is what the host asks for resource: an agent's
// protected resource, or an MCP server's challenge in a session.
func findRequirement(ctx context.Context, c *conn, session, resource string) (authpkce.Requirement, []string, error) {
	var advertised []string
	var found *authpkce.Requirement
	root, _ := c.Root()
	for _, ag := range root.Agents {
		for _, p := range ag.ProtectedResources {
			advertised = append(advertised, p.Resource)
			if p.Resource == resource && found == nil {
				found = &authpkce.Requirement{Reason: authpkce.ReasonRequired, Resource: p}
			}
		}
	}
	var sessions []string
	if session != "" {
		sessions = []string{session}
	} else {
		list, err := c.ListSessions(ctx)
		if err != nil {
			return authpkce.Requirement{}, nil, fmt.Errorf("list sessions: %w", err)
		}
		for _, s := range list {
			sessions = append(sessions, s.Resource)
		}
	}
	for _, s := range sessions {
		sess, _, chat, err := c.session(ctx, s)
		if err != nil {
			return authpkce.Requirement{}, nil, err
		}
		// A tool call stopped for sign-in (a step-up challenge) names
		// its requirement itself, as in the UI's card.
		if chat.ActiveTurn != nil {
			for _, p := range chat.ActiveTurn.ResponseParts {
				tp, ok := p.Variant.(protocol.ToolCallResponsePart)
				if !ok {
					continue
				}
				if ar, ok := tp.ToolCall.Variant.(protocol.ToolCallAuthRequiredState); ok {
					advertised = append(advertised, ar.Auth.Resource.Resource)
					if ar.Auth.Resource.Resource == resource && found == nil {
						req := authpkce.RequirementOf(ar.Auth)
						found = &req
					}
				}
			}
		}
		for _, r := range mcpRows(sess) {
			if r.Auth == nil {
				continue
			}
			advertised = append(advertised, r.Auth.Resource.Resource)
			if r.Auth.Resource.Resource == resource && found == nil {
				req := authpkce.RequirementOf(*r.Auth)
				found = &req
			}
		}
	}
	if found == nil {
		return authpkce.Requirement{}, nil, notFoundf("the host asks no token for %s (ahptui mcp list shows what waits for sign-in)", views_quote(resource))
	}
	return *found, advertised, nil
}

// otherOriginFlag lets auth login go on with a sign-in page that is not on
// the issuer's origin (the UI shows such a device page with a warning).
const otherOriginFlag = "allow-other-origin"

// loginRequest is what auth login signs in to: the host's requirement,
// the resources it advertised, the servers --allow-server agreed to, and
// whether --allow-other-origin was given. gate, when set, lets the
// browser open (true) or not (false) once the page's origin is checked.
type loginRequest struct {
	req         authpkce.Requirement
	advertised  []string
	allow       []string
	otherOrigin bool
	gate        chan<- bool
}

// checkOrigin refuses a sign-in page off the issuer's origin unless
// --allow-other-origin was given, and then says on stderr which origins
// they are (authpkce.Grant.OtherOrigin: the UI's words). It lets the
// browser open only when the page may be used.
func (a *app) checkOrigin(g *authpkce.Grant, lr loginRequest) error {
	warn := g.OtherOrigin()
	ok := warn == "" || lr.otherOrigin
	if lr.gate != nil {
		lr.gate <- ok
	}
	switch {
	case warn == "":
		return nil
	case !ok:
		return withCode(ExitSignIn, fmt.Errorf("sign in to %s: %s Not started; if you expected it, run again with --%s",
			hostText(lr.req.Resource.Resource), hostText(warn), otherOriginFlag))
	}
	fmt.Fprintf(a.Stderr, "warning: %s\n", hostText(warn))
	return nil
}

func (a *app) login(ctx context.Context, c *conn, auth *authpkce.Authenticator, lr loginRequest, device, paste bool) error {
	req := lr.req
	greq := authpkce.GrantRequest{Requirement: req, Advertised: lr.advertised, Host: c.host, ConfirmedServers: lr.allow}
	var g *authpkce.Grant
	var err error
	if device {
		g, err = auth.StartDevice(ctx, greq)
	} else {
		g, err = auth.Start(ctx, greq)
	}
	if sc := (*authpkce.ServerConfirmation)(nil); errors.As(err, &sc) {
		// The UI asks "sign in at HOST (ADDR)?"; a command cannot, so it
		// says how to say yes.
		return withCode(ExitSignIn, fmt.Errorf("sign in to %s: the authorization server %s is at %s, a private or loopback address: a host can point a sign-in at a machine on your network; if you trust it, run again with --allow-server %s",
			hostText(req.Resource.Resource), hostText(sc.Host), sc.Addr, hostText(sc.Host)))
	}
	if err != nil {
		return withCode(ExitSignIn, fmt.Errorf("sign in to %s: %w%s", hostText(req.Resource.Resource), err, byHandHint(req)))
	}
	defer g.Cancel()
	if err := a.checkOrigin(g, lr); err != nil {
		return err
	}
	if d := g.Device(); d != nil {
		fmt.Fprintf(a.Stderr, "To sign in to %s, open\n  %s\nand enter the code %s\n", hostText(req.Resource.Resource), hostText(d.VerificationURI), hostText(d.UserCode))
	} else if u := g.URL(); u != "" {
		fmt.Fprintf(a.Stderr, "To sign in to %s, open this URL:\n%s\n", hostText(req.Resource.Resource), hostText(u))
	}
	if paste && g.Device() == nil {
		fmt.Fprintln(a.Stderr, "then paste the address the browser lands on here:")
		if err := pasteAddress(ctx, a.Stdin, a.Stderr, g); err != nil {
			return err
		}
	}
	res, err := g.Wait(ctx)
	if err != nil {
		return withCode(ExitSignIn, fmt.Errorf("sign in to %s: %w", hostText(req.Resource.Resource), err))
	}
	if err := c.Authenticate(ctx, res.Resource, res.AccessToken, res.Scopes, res.Expiry); err != nil {
		return withCode(ExitSignIn, fmt.Errorf("the host refused the token for %s: %w", hostText(res.Resource), err))
	}
	out := loginJSON{Resource: res.Resource, Issuer: res.AuthorizationServer, Scopes: res.Scopes}
	if out.Scopes == nil {
		out.Scopes = []string{}
	}
	if !res.Expiry.IsZero() {
		out.Expiry = res.Expiry.UTC().Format(time.RFC3339)
	}
	return a.emit(out, func(w io.Writer) { fmt.Fprintf(w, "signed in to %s\n", hostText(out.Resource)) })
}

// pasteAddress hands g the addresses read from in, one a line, until one
// completes it; a wrong one is said on stderr and another is read.
func pasteAddress(ctx context.Context, in io.Reader, errw io.Writer, g *authpkce.Grant) error {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		err := g.Complete(ctx, line)
		if errors.Is(err, authpkce.ErrPastedURL) {
			fmt.Fprintln(errw, hostText(err.Error()))
			continue
		}
		return nil // the grant's own outcome comes from Wait
	}
	select {
	case <-g.Done():
		return nil
	default:
	}
	return withCode(ExitSignIn, errors.New("no address pasted: stdin ended before the sign-in did"))
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// byHandHint names the token-by-hand flags after a failed OAuth start.
func byHandHint(req authpkce.Requirement) string {
	if authpkce.IsGitHubResource(req.Resource.Resource, req.Resource.AuthorizationServers) {
		return " (or give a token: --gh, or --with-token on stdin)"
	}
	return " (or give a token on stdin: --with-token)"
}

// pushByHand pushes a token given by hand for req's resource, read from
// stdin or from gh auth token, and reports the host's answer. The UI's
// agent prompt does the same, with the same checks (authpkce's).
func (a *app) pushByHand(ctx context.Context, c *conn, req authpkce.Requirement, gh bool) error {
	resource := req.Resource.Resource
	var tok string
	if gh {
		if !authpkce.IsGitHubResource(resource, req.Resource.AuthorizationServers) {
			return usagef("gh gives GitHub tokens, and %s is not GitHub's: use --with-token", views_quote(resource))
		}
		bin, err := exec.LookPath("gh")
		if err != nil {
			return withCode(ExitSignIn, errors.New("gh is not installed (not on PATH): install GitHub's CLI and run gh auth login, or use --with-token"))
		}
		if tok, err = authpkce.GhToken(ctx, bin); err != nil {
			return withCode(ExitSignIn, err)
		}
	} else {
		line, err := bufio.NewReader(io.LimitReader(a.Stdin, authpkce.MaxHandTokenLen+2)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the token from stdin: %w", err)
		}
		if tok = strings.TrimSpace(line); tok == "" {
			return usagef("--with-token: no token on stdin")
		}
		if err := authpkce.CheckHandToken(tok); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	if err := c.Authenticate(ctx, resource, tok, nil, time.Time{}); err != nil {
		return withCode(ExitSignIn, fmt.Errorf("the host refused the token for %s: %w", hostText(resource), err))
	}
	out := loginJSON{Resource: resource, Scopes: []string{}, ByHand: true}
	return a.emit(out, func(w io.Writer) {
		fmt.Fprintf(w, "the host took the token for %s (not saved)\n", hostText(resource))
	})
}
