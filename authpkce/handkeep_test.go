package authpkce

import (
	"context"
	"testing"
)

// TestKeepHandTokenBinding: a token given by hand and kept (issue 36 item
// 5) is a saved grant under the same rules as one a flow obtained: pushed
// silently on the host it was given on when the host names the same
// authorization server, asked about on another host, never where the
// host names another server; it survives a new Authenticator on the same
// directory, S sees it as given by hand, and Forget drops it without
// contacting any server.
func TestKeepHandTokenBinding(t *testing.T) {
	dir := t.TempDir()
	a, err := New(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	const hostA, hostB = "ws://127.0.0.1:4100/", "ws://127.0.0.1:4200/"
	w := Want{Resource: "https://api.github.com", Issuer: "https://github.com/login/oauth"}
	if err := a.KeepHandToken(hostA, Want{Resource: w.Resource}, "gho_x"); err == nil {
		t.Fatal("a token was kept with no authorization server to bind it to")
	}
	if err := a.KeepHandToken(hostA, w, "two words"); err == nil {
		t.Fatal("kept something that is not a token")
	}
	if err := a.KeepHandToken(hostA, w, "gho_keptByHand"); err != nil {
		t.Fatal(err)
	}
	b, err := New(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if m := b.Lookup(hostA, w); m.Decision != DecisionSilent || m.Token.AccessToken != "gho_keptByHand" {
		t.Fatalf("on its own host: %v", m.Decision)
	}
	if m := b.Lookup(hostB, w); m.Decision != DecisionAsk {
		t.Fatalf("on another host: %v, want ask", m.Decision)
	}
	if m := b.Lookup(hostA, Want{Resource: w.Resource, Issuer: "https://evil.example/"}); m.Decision != DecisionNever {
		t.Fatalf("where the host names another server: %v, want never", m.Decision)
	}
	gs := b.Grants()
	if len(gs) != 1 || !gs[0].ByHand || gs[0].ClientID != HandClient {
		t.Fatalf("grants: %+v", gs)
	}
	f, err := b.Forget(context.Background(), gs[0])
	if err != nil || f.Revoked || f.RevokeErr != nil || !f.ClearOnHost {
		t.Fatalf("forget: %+v, %v", f, err)
	}
	if m := b.Lookup(hostA, w); m.Decision != DecisionNone {
		t.Fatalf("after forget: %v", m.Decision)
	}
}
