package e2e

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/internal/tmuxtest"
	"github.com/ahptui/ahptui/views"
)

// TestSignInOverSSH plays a user whose browser is on another machine:
// ahptui runs with --no-browser and a fixed --callback-port (one ssh -L
// for every sign-in). The test reads the sign-in URL off the 80×24 screen
// from rows that hold nothing but the URL — what a triple-click or a drag
// would copy — and checks it asks for the fixed port and is in the --log
// file. Then the headless browser stand-in approves it and either
//   - "loopback": follows the redirect to 127.0.0.1:PORT (the tunnel), or
//   - "paste": stops at the redirect, as a browser whose redirect reaches
//     nothing does, and the user pastes the address it landed on into the
//     sheet's field;
//
// and the deploy is granted. In the loopback run the user then opens the
// sign-ins sheet and forgets the grant, which revokes it at the demo's
// authorization server. (--demo keeps tokens in memory only, so the sheet
// lists what this run obtained; that is all a revocation test needs.)
func TestSignInOverSSH(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end: builds ahptui and drives it in tmux")
	}
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	for _, mode := range []string{"loopback", "paste"} {
		t.Run(mode, func(t *testing.T) {
			port := freePort(t)
			logFile := filepath.Join(t.TempDir(), "ahptui.log")
			u := acceptDeployGrant(t, bin, "--callback-port", strconv.Itoa(port), "--log", logFile)
			s := u.s
			screen := u.see("the sign-in URL on rows of its own", func(s string) bool { _, err := bareAuthURL(s); return err == nil })
			authURL, _ := bareAuthURL(screen)
			if err := CheckAuthURL(authURL, demoDeployResource, demoDeployScope); err != nil {
				t.Fatalf("the URL read off the screen is not a valid request:\n%s\n%v", authURL, err)
			}
			if want := "http://127.0.0.1:" + strconv.Itoa(port) + "/callback"; authURL.Query().Get("redirect_uri") != want {
				t.Errorf("redirect_uri %q, want the fixed callback port: %q", authURL.Query().Get("redirect_uri"), want)
			}
			if !strings.Contains(PanelText(screen, views.GrantOverlayTitle), "127.0.0.1:") {
				t.Errorf("the sheet does not name the authorization server:\n%s", screen)
			}
			if logged, err := os.ReadFile(logFile); err != nil || !strings.Contains(string(logged), authURL.Query().Get("state")) {
				t.Errorf("the sign-in URL is not in the --log file (%v)", err)
			}

			switch mode {
			case "loopback":
				approveInHeadlessBrowser(t, authURL)
				u.see("access granted", func(s string) bool { return strings.Contains(s, "access granted") })
				forgetFromSignIns(u)
			case "paste":
				landed := approveWithoutRedirect(t, authURL)
				u.hit(km.Grant.Paste)
				u.see("paste field open", func(s string) bool {
					return strings.Contains(Flatten(strings.Split(PanelText(s, views.GrantOverlayTitle), "\n")), "Paste the address")
				})
				u.s.Paste(landed.String())
				u.hit(km.Paste.Submit)
				u.see("access granted after the paste", func(s string) bool { return strings.Contains(s, "access granted") })
			}
			u.hit(km.Global.Quit)
			if code, err := s.WaitExit(10 * time.Second); err != nil || code != 0 {
				t.Fatalf("q: exit status %d, %v\n%s", code, err, s.Capture())
			}
		})
	}
}

// forgetFromSignIns opens the sign-ins sheet, checks it lists the deploy
// grant with where it came from, forgets it and reads the revocation.
func forgetFromSignIns(u *user) {
	u.t.Helper()
	u.see("status settles", func(s string) bool { _, open := Panel(s, views.GrantOverlayTitle); return !open })
	u.hit(km.Global.SignIns)
	screen := u.see("sign-ins sheet lists the grant", func(s string) bool {
		return strings.Contains(PanelText(s, views.SignInsTitle), demoDeployResource)
	})
	lines, _ := Panel(screen, views.SignInsTitle)
	sheet := Flatten(lines)
	for _, want := range []string{"issued by http://127.0.0.1:", "on host ws://127.0.0.1:", demoDeployScope} {
		if !strings.Contains(sheet, want) {
			u.t.Errorf("the sign-ins sheet does not show %q:\n%s", want, sheet)
		}
	}
	u.hit(km.SignIns.Forget)
	u.see("forgetting asks first", func(s string) bool {
		return strings.Contains(Flatten(strings.Split(PanelText(s, views.SignInsTitle), "\n")), "Forget the sign-in to")
	})
	u.hit(km.Confirm.Yes)
	screen = u.see("forgotten and revoked", func(s string) bool {
		return strings.Contains(PanelText(s, views.SignInsTitle), "No saved sign-ins")
	})
	lines, _ = Panel(screen, views.SignInsTitle)
	if !strings.Contains(Flatten(lines), "revoked at 127.0.0.1:") {
		u.t.Errorf("the sheet does not say the server revoked the grant:\n%s", PanelText(screen, views.SignInsTitle))
	}
	u.hit(km.SignIns.Close)
	u.see("sheet closed", func(s string) bool { _, open := Panel(s, views.SignInsTitle); return !open })
}

// bareAuthURL reads the authorization URL from rows that hold nothing
// else: no border glyph, no other text, only the URL's pieces, joined.
func bareAuthURL(screen string) (*url.URL, error) {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "http://") && !strings.HasPrefix(t, "https://") {
			continue
		}
		var b strings.Builder
		for j := i; j < len(lines); j++ {
			piece := strings.TrimSpace(lines[j])
			if piece == "" || strings.ContainsAny(piece, " "+verticals+horizontals+bottomLefts) {
				break
			}
			b.WriteString(piece)
		}
		u, err := url.Parse(b.String())
		if err == nil && u.Query().Get("code_challenge") != "" && u.Query().Get("state") != "" {
			return u, nil
		}
	}
	return nil, errors.New("no authorization URL on rows of its own")
}

// approveWithoutRedirect approves on the consent page and returns the
// address the browser would land on, without going there.
func approveWithoutRedirect(t *testing.T, authURL *url.URL) *url.URL {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	landed, err := authserver.ApproveHeadless(ctx, &http.Client{Jar: jar, Timeout: stepTimeout}, authURL.String())
	if err != nil {
		t.Fatalf("approving on the consent page: %v", err)
	}
	if err := authserver.RedirectError(landed); err != nil {
		t.Fatalf("the authorization server refused the request: %v", err)
	}
	return landed
}

// freePort is a 127.0.0.1 port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
