package authserver

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

const testResource = "http://127.0.0.1:7777/ahp"

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func startServer(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// callback is a real loopback redirect target, as a native client runs one.
type callback struct {
	URL  string
	hits chan url.Values
}

func startCallback(t *testing.T) *callback {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cb := &callback{URL: "http://" + ln.Addr().String() + "/callback", hits: make(chan url.Values, 4)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		cb.hits <- r.URL.Query()
		_, _ = w.Write([]byte("done"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return cb
}

// deliver follows the redirect the way the browser would, into the callback
// listener, and returns what the listener saw.
func (cb *callback) deliver(t *testing.T, ctx context.Context, redirect *url.URL) url.Values {
	t.Helper()
	if !strings.HasPrefix(redirect.String(), cb.URL) {
		t.Fatalf("redirect %q does not target the callback %q", redirect, cb.URL)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, redirect.String(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("deliver to callback: %v", err)
	}
	resp.Body.Close()
	select {
	case q := <-cb.hits:
		return q
	case <-ctx.Done():
		t.Fatal("callback never hit")
		return nil
	}
}

func oauthConf(s *Server, clientID, redirect string, scopes ...string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID,
		Endpoint: oauth2.Endpoint{
			AuthURL:   s.Issuer() + AuthorizePath,
			TokenURL:  s.Issuer() + TokenPath,
			AuthStyle: oauth2.AuthStyleInParams,
		},
		RedirectURL: redirect,
		Scopes:      scopes,
	}
}

// fullFlow runs authorize (approve) → callback → token exchange.
func fullFlow(t *testing.T, ctx context.Context, s *Server, conf *oauth2.Config, cb *callback, resource string) *oauth2.Token {
	t.Helper()
	verifier := oauth2.GenerateVerifier()
	state := "state-" + oauth2.GenerateVerifier()[:16]
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	}
	redirect, err := ApproveHeadless(ctx, nil, conf.AuthCodeURL(state, opts...))
	if err != nil {
		t.Fatalf("ApproveHeadless: %v", err)
	}
	if err := RedirectError(redirect); err != nil {
		t.Fatalf("approve redirect: %v", err)
	}
	q := cb.deliver(t, ctx, redirect)
	if q.Get("state") != state {
		t.Fatalf("state = %q, want %q", q.Get("state"), state)
	}
	xopts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier)}
	if resource != "" {
		xopts = append(xopts, oauth2.SetAuthURLParam("resource", resource))
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), xopts...)
	if err != nil {
		t.Fatalf("Exchange: %v", err)
	}
	return tok
}

func oauthErrCode(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

func getJSON(t *testing.T, ctx context.Context, u string, v any) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("decode %s: %v", u, err)
	}
	return resp
}

// noFollow is the headless browser for requests ApproveHeadless does not
// cover: it never follows a redirect.
func noFollow() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
