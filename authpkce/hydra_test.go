package authpkce

// The integration tests run the whole flow against ory/hydra v2.3.0, a real
// OAuth 2.1 / OpenID Connect server, started once per test binary.
//
// Finding hydra: $AHPTUI_HYDRA, else the path .ci/build-hydra.sh builds to,
// ${XDG_CACHE_HOME:-$HOME/.cache}/ahptui/hydra-v2.3.0/hydra. Without it the
// hydra tests skip, except under CI=true, where they fail: run
// .ci/build-hydra.sh first.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const hydraVersion = "v2.3.0"

var (
	hydraOnce sync.Once
	hydra     *hydraServer
	hydraErr  error
)

// TestMain stops the shared hydra, which the first test that needs it
// starts: runs that need none (-short, -run of unit tests, fuzz workers)
// never pay for it.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if hydra != nil {
		hydra.stop()
	}
	os.Exit(code)
}

// needHydra returns the shared hydra or ends the test: a skip locally, a
// failure under CI=true (CI must never pass by skipping the real server).
func needHydra(t *testing.T) *hydraServer {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the hydra integration test")
	}
	hydraOnce.Do(func() { hydra, hydraErr = startHydra() })
	if hydra != nil {
		return hydra
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("hydra is required under CI=true: %v (build it with .ci/build-hydra.sh)", hydraErr)
	}
	t.Skipf("hydra unavailable: %v (build it with .ci/build-hydra.sh, or set AHPTUI_HYDRA)", hydraErr)
	return nil
}

func hydraPath() string {
	if p := os.Getenv("AHPTUI_HYDRA"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return filepath.Join(cache, "ahptui", "hydra-"+hydraVersion, "hydra")
}

type hydraServer struct {
	cmd      *exec.Cmd
	exited   chan struct{}
	dir      string
	issuer   string // http://127.0.0.1:PORT/ as hydra spells it
	public   string // without the trailing slash
	admin    string
	login    *http.Server
	loginURL string

	mu     sync.Mutex
	denied map[string]bool // client ids whose login the test user refuses
}

// freePort asks the kernel for an unused loopback port. hydra binds it a
// moment later; another process taking it in between is possible but rare,
// and then startup fails loudly rather than silently.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func startHydra() (*hydraServer, error) {
	bin := hydraPath()
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no hydra binary at %s: %w", bin, err)
	}
	dir, err := os.MkdirTemp("", "authpkce-hydra-")
	if err != nil {
		return nil, err
	}
	h := &hydraServer{dir: dir, exited: make(chan struct{}), denied: map[string]bool{}}

	// The login and consent UI: accepts (or, per client, refuses) through
	// hydra's admin API, playing the identity provider.
	lln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h.loginURL = "http://" + lln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", h.serveLogin)
	mux.HandleFunc("GET /consent", h.serveConsent)
	h.login = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go h.login.Serve(lln)

	pub, err := freePort()
	if err != nil {
		return nil, err
	}
	adm, err := freePort()
	if err != nil {
		return nil, err
	}
	h.issuer = fmt.Sprintf("http://127.0.0.1:%d/", pub)
	h.public = strings.TrimSuffix(h.issuer, "/")
	h.admin = fmt.Sprintf("http://127.0.0.1:%d", adm)
	cfg := fmt.Sprintf(`dsn: memory
log:
  level: warn
  leak_sensitive_values: false
serve:
  public:
    host: 127.0.0.1
    port: %d
  admin:
    host: 127.0.0.1
    port: %d
urls:
  self:
    issuer: %s
  login: %s/login
  consent: %s/consent
secrets:
  system:
    - authpkce-test-system-secret-0123456789
oidc:
  dynamic_client_registration:
    enabled: true
webfinger:
  oidc_discovery:
    client_registration_url: %s/oauth2/register
strategies:
  access_token: opaque
ttl:
  access_token: 1h
`, pub, adm, h.issuer, h.loginURL, h.loginURL, h.public)
	cfgPath := filepath.Join(dir, "hydra.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "hydra.log"))
	if err != nil {
		return nil, err
	}
	h.cmd = exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out", "--config", cfgPath)
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	h.cmd.Env = append(os.Environ(), "DSN=memory")
	killWithParent(h.cmd)
	if err := h.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() {
		_ = h.cmd.Wait()
		logf.Close()
		close(h.exited)
	}()
	if err := h.waitReady(60 * time.Second); err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// waitReady polls hydra's readiness endpoint (it has no other way to say
// it is up) until a bounded deadline or until hydra exits.
func (h *hydraServer) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get(h.public + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-h.exited:
			return fmt.Errorf("hydra exited during startup; log:\n%s", h.log())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("hydra not ready after %v; log:\n%s", limit, h.log())
		}
	}
}

func (h *hydraServer) log() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hydra.log"))
	return string(b)
}

func (h *hydraServer) stop() {
	if h.cmd != nil && h.cmd.Process != nil {
		_ = h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-h.exited:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
			<-h.exited
		}
	}
	if h.login != nil {
		h.login.Close()
	}
	os.RemoveAll(h.dir)
}

func (h *hydraServer) deny(clientID string) {
	h.mu.Lock()
	h.denied[clientID] = true
	h.mu.Unlock()
}

func (h *hydraServer) isDenied(clientID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.denied[clientID]
}

// adminJSON calls hydra's admin API.
func (h *hydraServer) adminJSON(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.admin+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("hydra admin %s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type hydraClient struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// createClient pre-registers a client with hydra's admin API, the way an
// administrator would before handing its id to the host. The registered
// redirect URI has no port: RFC 8252 §7.3 loopback matching ignores it.
func (h *hydraServer) createClient(t *testing.T, public bool, scope string) Client {
	t.Helper()
	c := hydraClient{
		ClientName:              "authpkce-test-" + t.Name(),
		RedirectURIs:            []string{"http://127.0.0.1/callback"},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		Scope:                   scope,
		TokenEndpointAuthMethod: "client_secret_basic",
	}
	if public {
		c.TokenEndpointAuthMethod = "none"
	}
	var out hydraClient
	if err := h.adminJSON(http.MethodPost, "/admin/clients", c, &out); err != nil {
		t.Fatal(err)
	}
	return Client{ClientID: out.ClientID, ClientSecret: out.ClientSecret}
}

func (h *hydraServer) serveLogin(w http.ResponseWriter, r *http.Request) {
	ch := url.QueryEscape(r.URL.Query().Get("login_challenge"))
	var lr struct {
		Client struct {
			ClientID string `json:"client_id"`
		} `json:"client"`
	}
	if err := h.adminJSON(http.MethodGet, "/admin/oauth2/auth/requests/login?login_challenge="+ch, nil, &lr); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var redirect struct {
		RedirectTo string `json:"redirect_to"`
	}
	var err error
	if h.isDenied(lr.Client.ClientID) {
		err = h.adminJSON(http.MethodPut, "/admin/oauth2/auth/requests/login/reject?login_challenge="+ch,
			map[string]string{"error": "access_denied", "error_description": "The test user <b>refused</b> the request"}, &redirect)
	} else {
		err = h.adminJSON(http.MethodPut, "/admin/oauth2/auth/requests/login/accept?login_challenge="+ch,
			map[string]any{"subject": "test-user"}, &redirect)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, redirect.RedirectTo, http.StatusFound)
}

func (h *hydraServer) serveConsent(w http.ResponseWriter, r *http.Request) {
	ch := url.QueryEscape(r.URL.Query().Get("consent_challenge"))
	var cr struct {
		RequestedScope    []string `json:"requested_scope"`
		RequestedAudience []string `json:"requested_access_token_audience"`
	}
	if err := h.adminJSON(http.MethodGet, "/admin/oauth2/auth/requests/consent?consent_challenge="+ch, nil, &cr); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var redirect struct {
		RedirectTo string `json:"redirect_to"`
	}
	if err := h.adminJSON(http.MethodPut, "/admin/oauth2/auth/requests/consent/accept?consent_challenge="+ch,
		map[string]any{"grant_scope": cr.RequestedScope, "grant_access_token_audience": cr.RequestedAudience}, &redirect); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, redirect.RedirectTo, http.StatusFound)
}

// introspect asks hydra whether token is active and for which scopes.
func (h *hydraServer) introspect(t *testing.T, token string) (active bool, scope string) {
	t.Helper()
	resp, err := http.PostForm(h.admin+"/admin/oauth2/introspect", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Active bool   `json:"active"`
		Scope  string `json:"scope"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Active, out.Scope
}

// browserVisit is what the stand-in browser saw.
type browserVisit struct {
	authURL  string
	callback string // the redirect to the loopback listener, if reached
	status   int
	body     string
	err      error
}

// standIn plays the user's browser without a display: an HTTP client with
// a cookie jar that follows every redirect (hydra → login → hydra →
// consent → hydra → our loopback callback).
type standIn struct {
	t      *testing.T
	visits chan browserVisit
	// stopAtCallback leaves the final hop to the test (to tamper with it).
	stopAtCallback bool
	// openErr makes Open fail like a machine without a browser.
	openErr error
	opened  chan string
}

func newStandIn(t *testing.T) *standIn {
	return &standIn{t: t, visits: make(chan browserVisit, 4), opened: make(chan string, 4)}
}

func (s *standIn) Open(authURL string) error {
	s.opened <- authURL
	go s.visit(authURL)
	return s.openErr
}

func (s *standIn) visit(authURL string) {
	v := browserVisit{authURL: authURL}
	jar, _ := cookiejar.New(nil)
	// A transport of its own: a visit may outlive its test, and the next
	// test may swap http.DefaultTransport (httpclient_test.go).
	c := &http.Client{
		Jar:       jar,
		Transport: &http.Transport{},
		Timeout:   30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 20 {
				return errors.New("too many redirects")
			}
			if req.URL.Path == "/callback" {
				v.callback = req.URL.String()
				if s.stopAtCallback {
					return http.ErrUseLastResponse
				}
			}
			return nil
		},
	}
	defer c.CloseIdleConnections()
	resp, err := c.Get(authURL)
	if err != nil {
		v.err = err
		s.visits <- v
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	v.status, v.body = resp.StatusCode, string(b)
	s.visits <- v
}

// wait returns the visit, failing the test if the stand-in never finishes.
func (s *standIn) wait() browserVisit {
	s.t.Helper()
	select {
	case v := <-s.visits:
		return v
	case <-time.After(30 * time.Second):
		s.t.Fatal("the stand-in browser never finished")
		return browserVisit{}
	}
}

// recorder keeps every request the Authenticator sends to the
// authorization server, bodies included, so tests can check the token and
// registration requests.
type recorder struct {
	mu   sync.Mutex
	reqs []recordedRequest
	rt   http.RoundTripper
}

type recordedRequest struct {
	method, url string
	header      http.Header
	body        string
}

func newRecorder() (*recorder, *http.Client) {
	r := &recorder{rt: &http.Transport{}}
	return r, &http.Client{Transport: r, Timeout: 30 * time.Second}
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, recordedRequest{req.Method, req.URL.String(), req.Header.Clone(), string(body)})
	r.mu.Unlock()
	return r.rt.RoundTrip(req)
}

func (r *recorder) find(pathSuffix string) []recordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recordedRequest
	for _, q := range r.reqs {
		if u, err := url.Parse(q.url); err == nil && strings.HasSuffix(u.Path, pathSuffix) {
			out = append(out, q)
		}
	}
	return out
}

func (r *recorder) close() { r.rt.(*http.Transport).CloseIdleConnections() }

// leakedGoroutines lists goroutines that run or were started by the
// package's own (non-test) code.
func leakedGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, line := range strings.Split(g, "\n") {
			line = strings.TrimSpace(line)
			if !strings.Contains(line, "/authpkce/") {
				continue
			}
			file := line[strings.LastIndex(line, "/")+1:]
			file = file[:strings.Index(file, ":")]
			if !strings.HasSuffix(file, "_test.go") {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// checkNoLeaks waits, bounded, for the package's goroutines to be gone:
// the listener's per-connection goroutines end just after Shutdown returns.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := leakedGoroutines()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutine(s) of authpkce still running:\n%s", len(left), strings.Join(left, "\n\n"))
		}
		time.Sleep(20 * time.Millisecond) // polling a condition, not waiting for an event
	}
}

// dialRefused reports whether nothing listens at the host:port of rawURL.
func dialRefused(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	c, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

func waitDone(t *testing.T, g *Grant) (Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := g.Wait(ctx)
	if errors.Is(err, ErrTimeout) && ctx.Err() != nil {
		t.Fatal("the grant never finished")
	}
	return res, err
}
