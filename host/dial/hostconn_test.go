package dial

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

const secret = "SECRET-8d1f0e"

func TestParseKeepsTokenOffTheURL(t *testing.T) {
	for _, tc := range []struct{ raw, url string }{
		{"ws://localhost:35893?tkn=" + secret, "ws://localhost:35893/"},
		{"ws://127.0.0.1:1/ahp?tkn=" + secret + "&x=1#frag", "ws://127.0.0.1:1/ahp"},
		{"wss://gw.example/alice?tkn=" + secret, "wss://gw.example/alice"},
	} {
		tg, err := Parse(tc.raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.raw, err)
		}
		if tg.URL != tc.url || tg.Display() != tc.url || !tg.HasToken() {
			t.Errorf("Parse(%q) = URL %q, has token %v; want %q with a token", tc.raw, tg.URL, tg.HasToken(), tc.url)
		}
		if !strings.Contains(tg.wireURL(), "tkn="+secret) {
			t.Errorf("the wire URL %q does not send the token", tg.wireURL())
		}
	}
}

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"ws://h:1/p?tkn=" + secret:      "ws://h:1/p",
		"ws://me:" + secret + "@h:1/":   "ws://h:1/",
		"ws://%zz?tkn=" + secret:        "ws://%zz",
		"garbage":                       "garbage",
		"ws://":                         "ws://",
		"ws://h:1/#" + secret:           "ws://h:1/",
		"ws://h/p@x?tkn=" + secret:      "ws://h/p@x",
		" wss://h:99999/?tkn=" + secret: "wss://h:99999/",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// dialKind dials target's URL with secret and checks the failure's kind,
// and that its text does not hold the secret.
func dialKind(t *testing.T, raw string, timeout time.Duration, want error, status int) {
	t.Helper()
	tg, err := Parse(raw + "?tkn=" + secret)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tp, err := tg.Dial(ctx, 0)
	if err == nil {
		tp.Close("")
		t.Fatalf("dial %s succeeded", raw)
	}
	var de *DialError
	if !errors.As(err, &de) || !errors.Is(err, want) || de.Status != status {
		t.Fatalf("dial %s: %v (%T), want kind %v status %d", raw, err, err, want, status)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(de.Short(), secret) {
		t.Errorf("the error shows the token: %v", err)
	}
}

func TestDialFailureKinds(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	t.Run("refused", func(t *testing.T) { dialKind(t, "ws://"+closedAddr+"/", 5*time.Second, ErrRefused, 0) })
	t.Run("unresolved", func(t *testing.T) { dialKind(t, "ws://nonexistent.invalid/", 5*time.Second, ErrNotResolved, 0) })
	t.Run("silent", func(t *testing.T) {
		dialKind(t, "ws://"+silent.Addr().String()+"/", 300*time.Millisecond, ErrTimedOut, 0)
	})
	t.Run("tls", func(t *testing.T) { dialKind(t, "wss://"+status(200)+"/", 5*time.Second, ErrTLS, 0) })
	t.Run("403", func(t *testing.T) { dialKind(t, "ws://"+status(403)+"/", 5*time.Second, ErrHTTPStatus, 403) })
	t.Run("404", func(t *testing.T) { dialKind(t, "ws://"+status(404)+"/", 5*time.Second, ErrHTTPStatus, 404) })
	t.Run("no socket", func(t *testing.T) {
		tg := Unix(filepath.Join(t.TempDir(), "gone.sock"), secret)
		_, err := tg.Dial(context.Background(), 0)
		if !errors.Is(err, ErrRefused) || strings.Contains(err.Error(), secret) {
			t.Fatalf("dial a missing socket: %v", err)
		}
	})
}

// TestDialSendsToken: the token reaches the host as ?tkn= (TCP and Unix
// socket), and only there.
func TestDialSendsToken(t *testing.T) {
	got := make(chan string, 2)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.URL.Query().Get(TokenParam)
		tp, err := jsonrpc.Accept(w, r, jsonrpc.AcceptOptions{})
		if err == nil {
			tp.Close("bye")
		}
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	tg, _ := Parse("ws://" + srv.Listener.Addr().String() + "/?tkn=" + secret)
	tp, err := tg.Dial(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	tp.Close("")
	if tok := <-got; tok != secret {
		t.Errorf("the host got token %q over TCP", tok)
	}

	dir, err := os.MkdirTemp("", "hc")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "h.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	us := &http.Server{Handler: h}
	go us.Serve(l)
	defer us.Close()
	ut := Unix(sock, secret)
	if ut.URL != "ws+unix://"+sock {
		t.Errorf("a socket host is named %q", ut.URL)
	}
	tp, err = ut.Dial(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	tp.Close("")
	if tok := <-got; tok != secret {
		t.Errorf("the host got token %q over the socket", tok)
	}
}

func TestScrubError(t *testing.T) {
	tg, _ := Parse("ws://h:1/?tkn=" + secret)
	inner := errors.New("host said: bad token " + secret)
	err := tg.ScrubError(inner)
	if strings.Contains(err.Error(), secret) || !errors.Is(err, inner) {
		t.Errorf("ScrubError = %q (Is inner: %v)", err, errors.Is(err, inner))
	}
}

// TestScrubOnlySecrets: a short token is removed where it stands as a
// secret (query value, userinfo, header, quoted, a token-shaped word) and
// never from inside other words; a long one wherever it is.
func TestScrubOnlySecrets(t *testing.T) {
	for _, tc := range []struct{ text, secret, want string }{
		{"connect to ws://h:1/?tkn=o: connection refused, wrong", "o", "connect to ws://h:1/?tkn=REDACTED: connection refused, wrong"},
		{"dial ws://h/?a=1&tkn=o&b=2", "o", "dial ws://h/?a=1&tkn=REDACTED&b=2"},
		{"ws://user:o@h/ and o alone", "o", "ws://user:REDACTED@h/ and o alone"},
		{"Authorization: Bearer connect; connect to h", "connect", "Authorization: Bearer REDACTED; connect to h"},
		{`{"tkn":"connect","msg":"connect failed"}`, "connect", `{"tkn":"REDACTED","msg":"connect failed"}`},
		{"token 4f2a bad, not 4f2ab or x4f2a", "4f2a", "token REDACTED bad, not 4f2ab or x4f2a"},
		{"the host said 4f2a.", "4f2a", "the host said REDACTED."},
		{"x a+b%20c in tkn=a%2Bb+c", "a+b c", "x REDACTED in tkn=REDACTED"},
		{"xSECRET0123456789abcdefx", "SECRET0123456789abcdef", "xREDACTEDx"},
		{"nothing here", "", "nothing here"},
	} {
		if got := Scrub(tc.text, tc.secret); got != tc.want {
			t.Errorf("Scrub(%q, %q)\n got %q\nwant %q", tc.text, tc.secret, got, tc.want)
		}
	}
}
