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
