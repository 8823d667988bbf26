package app

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/host/open"
	"github.com/ahptui/ahptui/internal/demotest"
	"github.com/ahptui/ahptui/protocol/client"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestConnectionTokenSources: the token from --connection-token-file, the
// URL or AHPTUI_CONNECTION_TOKEN reaches the host as ?tkn= (the file
// first, the variable last), and the host's URL keeps none of it.
func TestConnectionTokenSources(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Query().Get("tkn")
		if tp, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{}); err == nil {
			tp.Close("bye")
		}
	}))
	defer srv.Close()
	base := "ws://" + srv.Listener.Addr().String() + "/"
	file := filepath.Join(t.TempDir(), "tkn")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "AHPTUI_CONNECTION_TOKEN" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name, host, file, env, want string
	}{
		{"url", base + "?tkn=from-url", "", "from-env", "from-url"},
		{"file", base + "?tkn=from-url", file, "from-env", "from-file"},
		{"env", base, "", "from-env", "from-env"},
		{"none", base, "", "", ""},
	} {
		tg, err := hostTarget(options{host: tc.host, tokenFile: tc.file}, env(tc.env))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tg.URL != base {
			t.Errorf("%s: the host is named %q, want %q", tc.name, tg.URL, base)
		}
		tp, err := tg.Dial(context.Background(), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tp.Close("")
		if tok := <-got; tok != tc.want {
			t.Errorf("%s: the host got token %q, want %q", tc.name, tok, tc.want)
		}
	}
}

// TestReconnectLogKeepsTokenOut is issue 21's --log path in the client's
// reconnect loop: when a host with a connection token goes away, every
// failed attempt is logged, and none of them names the token.
func TestReconnectLogKeepsTokenOut(t *testing.T) {
	const secret = "SECRET-reconnect-4f1c"
	h, err := demohost.Start(t.Context(), demohost.Config{ConnectionToken: secret, NoDemoSession: true})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := hostTarget(options{host: h.URL() + "?tkn=" + secret}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var log demotest.Log
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	run, err := open.Start(open.Config{ConfigDir: t.TempDir(), Logger: logger})
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	defer run.Close()
	c, err := connectVia(run, tg)(t.Context())
	if err != nil {
		h.Close()
		t.Fatalf("connect with the token: %v", err)
	}
	defer c.Close()
	h.Close()
	for ev := range c.Events() {
		if ce, ok := ev.(client.ConnectionEvent); ok && ce.Status == client.StatusReconnecting && ce.Attempt >= 3 {
			break
		}
	}
	text := log.String()
	if !strings.Contains(text, "reconnect attempt failed") {
		t.Fatalf("no failed attempt was logged:\n%s", text)
	}
	if strings.Contains(text, secret) {
		t.Errorf("the log shows the connection token:\n%s", text)
	}
}
