package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/host/trace"
	"github.com/ahptui/ahptui/internal/tmuxtest"
)

// readTrace reads a --trace file: every line a trace.Line.
func readTrace(t *testing.T, path string) (string, []trace.Line) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the trace: %v", err)
	}
	var lines []trace.Line
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var line trace.Line
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Time == "" || line.Connection < 1 ||
			(line.Direction != "in" && line.Direction != "out") || len(line.Message) == 0 {
			t.Fatalf("not a trace line (%v): %q", err, l)
		}
		lines = append(lines, line)
	}
	return string(b), lines
}

// TestTraceOfASignIn is issue 24's wire trace proof: the UI with --trace
// runs the demo's full step-up sign-in (browser consent, the code to the
// loopback listener, the token pushed with authenticate); the trace holds
// the authenticate frame, redacted, and none of the code or the demo
// authorization server's tokens (by their prefixes).
func TestTraceOfASignIn(t *testing.T) {
	t.Parallel()
	skipShort(t)
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	u := acceptDeployGrant(t, bin, "--trace", tracePath)
	screen := u.see("the sign-in URL", func(s string) bool { _, err := bareAuthURL(s); return err == nil })
	authURL, _ := bareAuthURL(screen)
	landed := approveWithoutRedirect(t, authURL)
	code := landed.Query().Get("code")
	if code == "" {
		t.Fatalf("no code in %s", landed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, landed.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: stepTimeout}).Do(req)
	if err != nil {
		t.Fatalf("delivering the code: %v", err)
	}
	resp.Body.Close()
	u.see("access granted", func(s string) bool { return strings.Contains(s, "access granted") })
	u.see("the deploy ran", chatHas("Deployed"))
	u.press("q")
	text, lines := readTrace(t, tracePath)
	var auth bool
	for _, l := range lines {
		m := string(l.Message)
		if l.Direction == "out" && strings.Contains(m, `"method":"authenticate"`) {
			auth = true
			if !strings.Contains(m, `"token":"`+trace.Redacted+`"`) {
				t.Errorf("authenticate is not redacted: %s", m)
			}
		}
	}
	if !auth {
		t.Errorf("no authenticate frame in the trace:\n%s", text)
	}
	for _, secret := range []string{code, authserver.AccessTokenPrefix, authserver.RefreshTokenPrefix, authserver.CodePrefix} {
		if strings.Contains(text, secret) {
			t.Errorf("the trace holds %q", secret)
		}
	}
}

// TestCLITrace: a command's --trace records its frames without the
// connection token given as ?tkn=.
func TestCLITrace(t *testing.T) {
	t.Parallel()
	skipShort(t)
	secret := newSecret(t)
	h, err := demohost.Start(t.Context(), demohost.Config{Version: suiteVersion, ConnectionToken: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	bin := tmuxtest.Build(t, "github.com/ahptui/ahptui")
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	res := runCLI(t, bin, cliEnv(t), "", "sessions", "--host", h.URL()+"?tkn="+secret, "--trace", tracePath, "--config-dir", t.TempDir())
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	text, lines := readTrace(t, tracePath)
	noSecret(t, "the trace", text, secret)
	if !strings.Contains(text, `"method":"initialize"`) || !strings.Contains(text, `"method":"listSessions"`) || len(lines) < 4 {
		t.Errorf("the trace lacks the handshake or the listing:\n%s", text)
	}
}
