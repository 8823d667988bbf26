package trace_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/dial"
	"github.com/ahptui/ahptui/host/trace"
	"github.com/ahptui/ahptui/internal/demotest"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestMessageRedacts: every kind of secret a frame may carry is replaced,
// and the rest of the frame is kept.
func TestMessageRedacts(t *testing.T) {
	for _, tc := range []struct {
		name, frame string
		secret      string
		keep        string
	}{
		{"authenticate token", `{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"resource":"https://r","token":"SECRET-at"}}`, "SECRET-at", `"resource":"https://r"`},
		{"refresh token", `{"result":{"refresh_token":"SECRET-rt","token_type":"bearer"}}`, "SECRET-rt", `"token_type":"bearer"`},
		{"code", `{"params":{"code":"SECRET-code","state":"s1"}}`, "SECRET-code", `"state":"s1"`},
		{"tkn in a URL", `{"params":{"url":"ws://h:1/?tkn=SECRET-tkn&x=1"}}`, "SECRET-tkn", `x=1`},
		{"code in a URL", `{"params":{"landed":"http://127.0.0.1:9/callback?code=SECRET-c2&state=s"}}`, "SECRET-c2", `state=s`},
		{"bearer in text", `{"error":{"code":-32000,"message":"sent Authorization: Bearer SECRET.b-1 and failed"}}`, "SECRET.b-1", `"code":-32000`},
		{"not JSON", `garbage ?tkn=SECRET-g`, "SECRET-g", "garbage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(trace.Message([]byte(tc.frame)))
			if strings.Contains(got, tc.secret) || !strings.Contains(got, trace.Redacted) {
				t.Errorf("secret kept: %s", got)
			}
			if !strings.Contains(got, tc.keep) {
				t.Errorf("lost %q: %s", tc.keep, got)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// TestTraceOfAClient: a real client through a traced dialer, against the
// demo host with a connection token, pushing a token: every frame is a
// line in both directions, and neither secret is in the trace.
func TestTraceOfAClient(t *testing.T) {
	const conntok, bearer = "SECRET-conn-7a1", "SECRET-bearer-9f2"
	h, err := demohost.Start(t.Context(), demohost.Config{ConnectionToken: conntok, NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	target, err := dial.Parse(h.URL() + "?tkn=" + conntok)
	if err != nil {
		t.Fatal(err)
	}
	var buf demotest.Log
	tr := trace.New(&buf, func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })
	c, err := client.Dial(t.Context(), client.Options{URL: target.URL, ClientID: "0123456789abcdef0123456789abcdef",
		Dial: tr.Dial(target.Dialer(jsonrpc.DefaultReadLimit))})
	if err != nil {
		t.Fatal(err)
	}
	root, _ := c.Root()
	resource := "https://example.com/r"
	for _, ag := range root.Agents {
		for _, pr := range ag.ProtectedResources {
			resource = pr.Resource
		}
	}
	_ = c.Authenticate(t.Context(), resource, bearer, nil, time.Time{})
	c.Close()
	text := buf.String()
	for _, s := range []string{conntok, bearer} {
		if strings.Contains(text, s) {
			t.Errorf("the trace holds %s:\n%s", s, text)
		}
	}
	dirs := map[string]bool{}
	var sawAuth bool
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		var line trace.Line
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("not a trace line: %q", l)
		}
		if line.Connection != 1 || line.Time != "2026-01-02T03:04:05Z" {
			t.Errorf("line %q: connection %d, time %q", l, line.Connection, line.Time)
		}
		dirs[line.Direction] = true
		sawAuth = sawAuth || strings.Contains(string(line.Message), `"method":"authenticate"`) && strings.Contains(string(line.Message), trace.Redacted)
	}
	if !dirs["in"] || !dirs["out"] || !sawAuth {
		t.Errorf("directions %v, authenticate redacted %v:\n%s", dirs, sawAuth, text)
	}
}

// TestTraceNamesEachHost: two clients to two hosts through one trace,
// each dialled with DialHost: every line names its own connection's
// host (name and token-free URL), a URL handed over with its connection
// token is written without it, and Dial's lines name none.
func TestTraceNamesEachHost(t *testing.T) {
	const conntok = "SECRET-conn-b22"
	a, err := demohost.Start(t.Context(), demohost.Config{NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := demohost.Start(t.Context(), demohost.Config{ConnectionToken: conntok, NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var buf demotest.Log
	tr := trace.New(&buf, time.Now)
	dial := func(raw string, wrap func(func(context.Context, string) (jsonrpc.Transport, error)) func(context.Context, string) (jsonrpc.Transport, error)) {
		target, err := dial.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.Dial(t.Context(), client.Options{URL: target.URL, ClientID: "0123456789abcdef0123456789abcdef",
			Dial: wrap(target.Dialer(jsonrpc.DefaultReadLimit))})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	dial(a.URL(), func(d func(context.Context, string) (jsonrpc.Transport, error)) func(context.Context, string) (jsonrpc.Transport, error) {
		return tr.DialHost("one", a.URL(), d)
	})
	dial(b.URL()+"?tkn="+conntok, func(d func(context.Context, string) (jsonrpc.Transport, error)) func(context.Context, string) (jsonrpc.Transport, error) {
		return tr.DialHost("", b.URL()+"?tkn="+conntok, d)
	})
	dial(a.URL(), tr.Dial)
	text := buf.String()
	if strings.Contains(text, conntok) {
		t.Errorf("the trace holds the connection token:\n%s", text)
	}
	want := map[int64]string{1: `{"name":"one","url":"` + a.URL() + `"}`, 2: `{"name":"","url":"` + b.URL() + `?tkn=` + trace.Redacted + `"}`, 3: "null"}
	seen := map[int64]int{}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		var line trace.Line
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("not a trace line: %q", l)
		}
		host, _ := json.Marshal(line.Host)
		if string(host) != want[line.Connection] {
			t.Errorf("connection %d's line names host %s, want %s", line.Connection, host, want[line.Connection])
		}
		seen[line.Connection]++
	}
	if seen[1] == 0 || seen[2] == 0 || seen[3] == 0 {
		t.Errorf("lines per connection %v:\n%s", seen, text)
	}
}
