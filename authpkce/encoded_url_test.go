package authpkce

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/views"
)

// TestAuthorizationURLReencoded: an authorization endpoint with spaces,
// $(…), backticks and U+202E in its path reaches the browser and the
// clipboard re-encoded from the parsed URL, byte for byte what the sheet
// shows; an endpoint whose host cannot be encoded cleanly is refused
// (issue 21, finding 9).
func TestAuthorizationURLReencoded(t *testing.T) {
	hostile := "/auth/$(touch pwned) `id` \u202egnp.exe;x'y\"z"
	as := newHostileAS(t, func(iss string) map[string]any {
		md := baseMetadata(iss)
		md["authorization_endpoint"] = iss + hostile
		return md
	})
	b := newRecordingBrowser()
	a, err := New(Config{MemoryOnly: true, OpenBrowser: b.open, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := misuseCtx(t)
	g, err := a.Start(ctx, hostileRequest(as, ""))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer g.Cancel()
	<-b.more
	b.mu.Lock()
	opened := b.opened[0]
	b.mu.Unlock()
	if opened != g.URL() {
		t.Errorf("the browser got %q, the sheet shows %q", opened, g.URL())
	}
	if !printableASCII(g.URL()) {
		t.Errorf("the authorization URL is not printable ASCII: %q", g.URL())
	}
	for _, bad := range []string{"$(", "`", "\u202e", " ", "'", "\""} {
		if strings.Contains(g.URL(), bad) {
			t.Errorf("the authorization URL carries %q as it is: %q", bad, g.URL())
		}
	}
	if shown := views.SanitizeLine(g.URL()); shown != g.URL() {
		t.Errorf("the screen shows %q, the browser and clipboard get %q", shown, g.URL())
	}
	if !strings.HasPrefix(g.URL(), as.issuer()+"/auth/$%28touch%20pwned%29") {
		t.Errorf("the authorization URL %q is not the endpoint re-encoded", g.URL())
	}

	// A host that cannot be written in printable ASCII is refused.
	bad := newHostileAS(t, func(iss string) map[string]any {
		md := baseMetadata(iss)
		md["authorization_endpoint"] = "https://exa\u202emple.com/authorize"
		return md
	})
	_, err = a.Start(ctx, hostileRequest(bad, ""))
	if !errors.Is(err, ErrDiscovery) || !strings.Contains(err.Error(), "authorization_endpoint") {
		t.Errorf("Start with a non-ASCII authorization endpoint host: %v, want ErrDiscovery naming authorization_endpoint", err)
	}
	if err != nil && strings.ContainsRune(err.Error(), '\u202e') {
		t.Errorf("the error carries U+202E: %q", err)
	}
}
