package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

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
