package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/authpkce"
)

// TestCheckClock: doctor's clock check compares this clock with the Date
// of the authorization servers that set the saved tokens' expiry: a
// server ten minutes behind (this clock ahead) or ahead is a warning
// that says which way tokens are misjudged; one that agrees is ok; a
// server that does not answer is said; no saved sign-in, no check.
func TestCheckClock(t *testing.T) {
	server := func(offset time.Duration) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Date", time.Now().Add(offset).UTC().Format(http.TimeFormat))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, tc := range []struct {
		name    string
		issuers []string
		ok      bool
		status  string
		words   string
	}{
		{"none", nil, false, "", ""},
		{"ahead", []string{server(-10 * time.Minute)}, true, checkWarn, "ahead of"},
		{"behind", []string{server(10 * time.Minute)}, true, checkWarn, "behind"},
		{"agrees", []string{server(0)}, true, checkOK, "agrees with"},
		{"down then agrees", []string{down.URL, server(0)}, true, checkOK, "agrees with"},
		{"down", []string{down.URL}, true, checkWarn, "gave its time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gs []authpkce.StoredGrant
			for _, is := range tc.issuers {
				gs = append(gs, authpkce.StoredGrant{Issuer: is, Resource: "https://r.example/"})
			}
			c, ok := checkClock(t.Context(), gs, &http.Client{Timeout: 5 * time.Second})
			if ok != tc.ok || c.Status != tc.status || !strings.Contains(c.Detail, tc.words) {
				t.Fatalf("checkClock = %+v, %v; want %v %s %q", c, ok, tc.ok, tc.status, tc.words)
			}
			if c.Status == checkWarn && c.Fix == "" {
				t.Errorf("a warning without a fix: %+v", c)
			}
		})
	}
}

// TestTerminalCheck: the terminal check names the colours the
// environment gives, warns where copy (OSC 52) cannot get out (tmux with
// set-clipboard off, screen) with the fix, and where no terminal draws.
func TestTerminalCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		clip   string
		status string
		words  []string
	}{
		{"truecolor", map[string]string{"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "", checkOK, []string{"24-bit colour", "OSC 52", "OSC 8"}},
		{"256", map[string]string{"TERM": "xterm-256color"}, "", checkOK, []string{"256 colours"}},
		{"16", map[string]string{"TERM": "xterm"}, "", checkOK, []string{"16 colours"}},
		{"NO_COLOR", map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, "", checkOK, []string{"no colours (NO_COLOR is set)"}},
		{"dumb", map[string]string{"TERM": "dumb"}, "", checkWarn, []string{"not a terminal"}},
		{"tmux off", map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"}, "off", checkWarn, []string{"set-clipboard off"}},
		{"tmux on", map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"}, "on", checkOK, []string{"set-clipboard on", "tmux 3.4"}},
		{"tmux unknown", map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"}, "", checkOK, []string{"set-clipboard is unknown"}},
		{"screen", map[string]string{"TERM": "screen", "STY": "1.pts-0.host"}, "", checkWarn, []string{"inside screen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := terminalCheck(func(k string) string { return tc.env[k] }, func(string) string { return tc.clip })
			if c.Status != tc.status {
				t.Errorf("status %s, want %s: %+v", c.Status, tc.status, c)
			}
			for _, w := range tc.words {
				if !strings.Contains(c.Detail, w) {
					t.Errorf("detail lacks %q: %s", w, c.Detail)
				}
			}
			if c.Status == checkWarn && c.Fix == "" {
				t.Errorf("a warning without a fix: %+v", c)
			}
		})
	}
}
