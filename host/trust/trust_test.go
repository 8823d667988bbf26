package trust

import (
	"strings"
	"testing"

	"github.com/ahptui/ahptui/authpkce"
	"github.com/ahptui/ahptui/protocol"
)

func TestTransportOf(t *testing.T) {
	for _, c := range []struct {
		host  string
		found Found
		want  Transport
	}{
		{"wss://agents.example.com/", CommandLine, TLS},
		{"https://agents.example.com/", CommandLine, TLS},
		{"ws://127.0.0.1:8080/", CommandLine, PlainLoopback},
		{"ws://localhost:1/", Registry, PlainLoopback},
		{"ws://[::1]:1/", Saved, PlainLoopback},
		{"ws://10.0.0.5:35893/", CommandLine, PlainRemote},
		{"ws://agents.example.com/", CommandLine, PlainRemote},
		{"ws+unix:///tmp/h.sock", CommandLine, UnixByHand},
		{"ws+unix:///tmp/h.sock", Saved, UnixByHand},
		{"ws+unix:///tmp/h.sock", Registry, UnixRegistry},
		{"ssh://alice@box:22/standalone/i1", CommandLine, SSH},
		{"ssh://alice@box:22/editor/i2", Saved, SSH},
		{"::not a url", CommandLine, PlainRemote},
	} {
		if got := TransportOf(c.host, c.found); got != c.want {
			t.Errorf("TransportOf(%q, %d) = %s, want %s", c.host, c.found, got, c.want)
		}
	}
}

// TestDecide: the policy's rules one by one, beside the table both
// front-ends run (internal/trustcases).
func TestDecide(t *testing.T) {
	silent := authpkce.Match{Decision: authpkce.DecisionSilent, Token: authpkce.CachedToken{Host: "wss://a:443", AccessToken: "t"}}
	elsewhere := authpkce.Match{Decision: authpkce.DecisionAsk, Token: authpkce.CachedToken{Host: "wss://a:443", AccessToken: "t"}}
	base := Input{Host: "wss://b/", Transport: TLS, Found: CommandLine, Resource: "https://r", Advertised: true, Match: silent}
	with := func(f func(*Input)) Input { in := base; f(&in); return in }
	for _, c := range []struct {
		name   string
		in     Input
		kind   Kind
		q      Question
		plain  bool
		reason string
	}{
		{"silent over wss", base, Push, NoQuestion, false, "made on this host"},
		{"no resource", with(func(in *Input) { in.Resource = "" }), Refuse, NoQuestion, false, "names no resource"},
		{"not advertised", with(func(in *Input) { in.Advertised = false }), Refuse, NoQuestion, false, "did not advertise"},
		{"none saved", with(func(in *Input) { in.Match = authpkce.Match{} }), Refuse, NoQuestion, false, "no saved sign-in"},
		{"never", with(func(in *Input) { in.Match = authpkce.Match{Decision: authpkce.DecisionNever} }), Refuse, NoQuestion, false, "not for this host"},
		{"never with the flag", with(func(in *Input) { in.Match = authpkce.Match{Decision: authpkce.DecisionNever}; in.Allow = true }), Refuse, NoQuestion, false, "not for this host"},
		{"elsewhere over wss", with(func(in *Input) { in.Match = elsewhere }), Ask, UseHere, false, "made on wss://a:443"},
		{"elsewhere with the flag", with(func(in *Input) { in.Match = elsewhere; in.Allow = true }), Push, NoQuestion, false, "you allowed"},
		{"elsewhere unrecorded", with(func(in *Input) { in.Match = authpkce.Match{Decision: authpkce.DecisionAsk} }), Ask, UseHere, false, "did not record"},
		{"plain loopback", with(func(in *Input) { in.Transport = PlainLoopback }), Ask, SendPlain, true, "proves nothing"},
		{"plain loopback, yes this run", with(func(in *Input) { in.Transport, in.Plain = PlainLoopback, PlainYes }), Push, NoQuestion, false, "said yes"},
		{"plain loopback, no this run", with(func(in *Input) { in.Transport, in.Plain = PlainLoopback, PlainNo }), Refuse, NoQuestion, false, "said no"},
		{"plain loopback, elsewhere, no this run", with(func(in *Input) { in.Transport, in.Plain, in.Match = PlainLoopback, PlainNo, elsewhere }), Refuse, NoQuestion, false, "said no"},
		{"plain loopback, elsewhere", with(func(in *Input) { in.Transport, in.Match = PlainLoopback, elsewhere }), Ask, UseHere, true, "made on"},
		{"plain loopback, the flag", with(func(in *Input) { in.Transport, in.Allow = PlainLoopback, true }), Push, NoQuestion, false, "you allowed"},
		{"registry, proven", with(func(in *Input) { in.Transport, in.Found, in.Proven = PlainLoopback, Registry, true }), Push, NoQuestion, false, "your own"},
		{"registry, not proven", with(func(in *Input) { in.Transport, in.Found = PlainLoopback, Registry }), Ask, SendPlain, true, "not proven to be yours"},
		{"registry socket", with(func(in *Input) { in.Transport, in.Found, in.Proven = UnixRegistry, Registry, true }), Push, NoQuestion, false, "made on this host"},
		{"socket by hand", with(func(in *Input) { in.Transport = UnixByHand }), Ask, SendPlain, true, "a Unix socket given by hand"},
		{"plain remote", with(func(in *Input) { in.Transport = PlainRemote }), Ask, SendPlain, true, "another machine"},
	} {
		v := Decide(c.in)
		if v.Kind != c.kind || v.Question != c.q || v.Plain != c.plain || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s: got %s/%s plain=%v %q, want %s/%s plain=%v with %q", c.name, v.Kind, v.Question, v.Plain, v.Reason, c.kind, c.q, c.plain, c.reason)
		}
	}
}

// TestWants: every agent's protected resources, the session's MCP
// servers in authRequired (with their scopes) and the running turn's
// auth-required tool calls; nil session and chat allowed.
func TestWants(t *testing.T) {
	root := protocol.RootState{Agents: []protocol.AgentInfo{{ProtectedResources: []protocol.ProtectedResourceMetadata{
		{Resource: "https://agent", AuthorizationServers: []string{"https://as1", "https://as2"}}, {Resource: "https://bare"}}}}}
	got := Wants(root, nil, nil)
	if len(got) != 2 || got[0].Resource != "https://agent" || got[0].Issuer != "https://as1" || got[1].Resource != "https://bare" || got[1].Issuer != "" {
		t.Fatalf("Wants(root) = %+v", got)
	}
	if got := Wants(protocol.RootState{}, &protocol.SessionState{}, &protocol.ChatState{}); len(got) != 0 {
		t.Fatalf("Wants of empty states = %+v", got)
	}
}

// TestSSHIsNotPlain: a grant made on an ssh host (its box's registry
// behind ssh's host key check) is pushed there silently, as on any
// proven host, without the plain-ws:// question.
func TestSSHIsNotPlain(t *testing.T) {
	if SSH.plain() {
		t.Fatal("SSH counts as a plain transport")
	}
}
