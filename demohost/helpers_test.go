package demohost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/ahptui/ahptui/demohost/authserver"
	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/convert"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

const waitTimeout = 15 * time.Second

// startHost starts a host whose every frame (both ways) is checked against
// the schema of the version it serves (cfg.Version); the test fails at
// cleanup if the host sent an invalid frame. Inbound failures are left to
// the test (some send garbage on purpose).
func startHost(t *testing.T, cfg Config) (*Host, *schemacheck.Validator) {
	t.Helper()
	v := validatorFor(t, cfg.Version)
	if cfg.StepDelay == 0 {
		cfg.StepDelay = -1
	}
	cfg.Validate = v.ValidateMessage
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := h.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		for _, fe := range h.ValidationErrors() {
			// Rejection echoes of unknown action types repeat them (the
			// spec requires the echo) and cannot be schema-valid.
			if fe.Dir == Outbound && fe.UnknownAction == "" {
				t.Errorf("host sent an invalid frame: %v", fe)
			}
		}
	})
	return h, v
}

// validatorFor is the schema validator of an AHP version the host serves
// ("" is the default, 1.0).
func validatorFor(t testing.TB, version string) *schemacheck.Validator {
	t.Helper()
	if version == "" {
		version = Version10
	}
	return schemacheck.MustForWire(t, protocol.WireOf(version))
}

// forEachVersion runs f once per version the host serves, as subtests
// named by the version.
func forEachVersion(t *testing.T, f func(t *testing.T, version string)) {
	for _, ver := range Versions {
		t.Run("ahp-"+ver, func(t *testing.T) { f(t, ver) })
	}
}

// rawClient is a bare JSON-RPC peer over a real WebSocket: it records every
// frame the host sends and validates each against the schemas. It speaks
// the host's version on the wire and 1.0 to the test: on a 0.6 host what
// it sends is converted down, and what it receives is checked against the
// 0.6 schema and then converted up, as ahptui's client does.
type rawClient struct {
	t        *testing.T
	tr       jsonrpc.Transport
	v        *schemacheck.Validator
	wire     wire
	clientID string
	// noValidate skips the per-frame schema check (for megabyte floods).
	noValidate atomic.Bool

	mu      sync.Mutex
	notes   []*jsonrpc.Request
	envs    []protocol.ActionEnvelope
	resps   map[string]*jsonrpc.Response
	methods map[string]string // request id → method, to read snapshots
	// mirror is each channel's state as the host described it: snapshots
	// from results, then every accepted envelope reduced in arrival order.
	mirror  map[string]protocol.SnapshotStateVariant
	changed chan struct{}
	closed  bool
	readErr error
	nextID  int64
	seq     int64 // clientSeq
	done    chan struct{}
}

func dial(t *testing.T, h *Host, v *schemacheck.Validator, clientID string) *rawClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	tr, err := jsonrpc.Dial(ctx, h.URL(), jsonrpc.DialOptions{})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c := &rawClient{t: t, tr: tr, v: v, wire: h.wire, clientID: clientID, resps: map[string]*jsonrpc.Response{}, methods: map[string]string{}, mirror: map[string]protocol.SnapshotStateVariant{}, changed: make(chan struct{}), done: make(chan struct{})}
	go c.readLoop()
	t.Cleanup(func() {
		_ = tr.Close("test done")
		<-c.done
	})
	return c
}

func (c *rawClient) readLoop() {
	defer close(c.done)
	// coder/websocket reads a frame cut off by the peer's closing socket
	// (a host killing its connection mid-write) as a short message with no
	// error; only the read after it fails. A frame that does not decode is
	// therefore judged by what follows: another frame makes it the host's
	// fault, the connection's end makes it that cut-off last frame.
	var bad string
	for {
		f, err := c.tr.Read(context.Background())
		c.mu.Lock()
		if err != nil {
			if bad != "" {
				c.t.Logf("the last frame was cut off by the close (%v): %s", err, bad)
			}
			c.closed, c.readErr = true, err
			close(c.changed)
			c.mu.Unlock()
			return
		}
		if bad != "" {
			c.t.Errorf("%s", bad)
			bad = ""
		}
		m, err := jsonrpc.Decode(f)
		if err != nil {
			bad = fmt.Sprintf("host sent an undecodable frame: %v\n%s", err, f)
			c.mu.Unlock()
			continue
		}
		if !c.noValidate.Load() {
			if verr := c.v.ValidateMessage(f); verr != nil {
				c.t.Errorf("host frame fails the schema: %v\n%s", verr, f)
			}
		}
		c.upLocked(f, m)
		switch m := m.(type) {
		case *jsonrpc.Request:
			c.notes = append(c.notes, m)
			if m.Method == "action" {
				var e protocol.ActionEnvelope
				if err := json.Unmarshal(m.Params, &e); err != nil {
					c.t.Errorf("decode envelope: %v", err)
				} else {
					c.envs = append(c.envs, e)
					c.applyLocked(e)
				}
			}
		case *jsonrpc.Response:
			key := "null"
			if m.ID != nil {
				key = m.ID.String()
			}
			c.resps[key] = m
			c.absorbResultLocked(c.methods[key], m)
		}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
}

// waitUntil blocks until cond (called under c.mu) holds.
func (c *rawClient) waitUntil(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.NewTimer(waitTimeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := cond()
		ch, closed := c.changed, c.closed
		c.mu.Unlock()
		if ok {
			return
		}
		if closed {
			c.t.Fatalf("connection closed while waiting for %s: %v", what, c.readErr)
		}
		select {
		case <-ch:
		case <-deadline.C:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// upLocked checks a response's result against the schema and brings a
// frame of a 0.6 host to the 1.0 shapes the test reads.
func (c *rawClient) upLocked(frame []byte, m jsonrpc.Message) {
	switch m := m.(type) {
	case *jsonrpc.Request:
		params, err := c.wire.upParams(m.Method, m.Params)
		if err != nil {
			c.t.Errorf("convert the host's %s up: %v", m.Method, err)
			return
		}
		m.Params = params
	case *jsonrpc.Response:
		if m.ID == nil || m.Error != nil {
			return
		}
		method := c.methods[m.ID.String()]
		if !c.noValidate.Load() && method != "" {
			if err := c.v.ValidateResponse(method, frame); err != nil {
				c.t.Errorf("%s result fails the schema: %v\n%s", method, err, frame)
			}
		}
		if !c.wire.older() || method == "" {
			return
		}
		res, err := convert.UpResult(c.wire.kind, method, m.Result)
		if err != nil {
			c.t.Errorf("convert the host's %s result up: %v", method, err)
			return
		}
		m.Result = res
	}
}

func (c *rawClient) send(frame []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if err := c.tr.Write(ctx, frame); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// sendMsg sends a request or notification written in 1.0 shapes, converted
// to the host's wire, and checks it against the schema first.
func (c *rawClient) sendMsg(m jsonrpc.Message) {
	c.t.Helper()
	if req, ok := m.(*jsonrpc.Request); ok && c.wire.older() {
		params, err := c.wire.downParams(req.Method, req.Params)
		if err != nil {
			c.t.Fatalf("the test sends %s, which has no form on the served version: %v", req.Method, err)
		}
		down := *req
		down.Params = params
		m = &down
	}
	f, err := jsonrpc.Encode(m)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.v.ValidateMessage(f); err != nil {
		c.t.Fatalf("test client frame fails the schema: %v\n%s", err, f)
	}
	c.send(f)
}

// call sends a request and waits for its response.
func (c *rawClient) call(method string, params any) *jsonrpc.Response {
	c.t.Helper()
	return c.callMaybeInvalid(method, params, true)
}

// callMaybeInvalid sends a request the test knows may be invalid unchecked.
func (c *rawClient) callMaybeInvalid(method string, params any, validate bool) *jsonrpc.Response {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := jsonrpc.Int64ID(c.nextID)
	c.methods[id.String()] = method
	c.mu.Unlock()
	raw, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	if validate {
		c.sendMsg(&jsonrpc.Request{ID: &id, Method: method, Params: raw})
	} else {
		// Sent as it is, unconverted: the test means these bytes.
		f, _ := jsonrpc.Encode(&jsonrpc.Request{ID: &id, Method: method, Params: raw})
		c.send(f)
	}
	var resp *jsonrpc.Response
	c.waitUntil("response to "+method, func() bool { resp = c.resps[id.String()]; return resp != nil })
	return resp
}

// mustCall calls and decodes a successful result.
func (c *rawClient) mustCall(method string, params, result any) {
	c.t.Helper()
	resp := c.call(method, params)
	if resp.Error != nil {
		c.t.Fatalf("%s: %v (data %s)", method, resp.Error, resp.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(resp.Result, result); err != nil {
			c.t.Fatalf("decode %s result: %v\n%s", method, err, resp.Result)
		}
	}
}

func (c *rawClient) wantError(method string, params any, code int64) *jsonrpc.Error {
	c.t.Helper()
	resp := c.call(method, params)
	if resp.Error == nil || resp.Error.Code != code {
		c.t.Fatalf("%s: got %v / %s, want error %d", method, resp.Error, resp.Result, code)
	}
	return resp.Error
}

func (c *rawClient) initialize(subs ...string) protocol.InitializeResult {
	c.t.Helper()
	var res protocol.InitializeResult
	c.mustCall("initialize", protocol.InitializeParams{ProtocolVersions: []string{c.wire.version}, ClientID: c.clientID, InitialSubscriptions: subs}, &res)
	return res
}

// dispatch sends a client action with the next clientSeq and returns it.
func (c *rawClient) dispatch(channel string, a protocol.StateActionVariant) int64 {
	c.t.Helper()
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	c.dispatchSeq(channel, seq, a)
	return seq
}

func (c *rawClient) dispatchSeq(channel string, seq int64, a protocol.StateActionVariant) {
	c.t.Helper()
	raw, err := json.Marshal(protocol.DispatchActionParams{Channel: channel, ClientSeq: seq, Action: protocol.NewStateAction(a)})
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendMsg(&jsonrpc.Request{Method: "dispatchAction", Params: raw})
}

// envelopesLocked is every action envelope received so far.
func (c *rawClient) envelopesLocked() []protocol.ActionEnvelope { return c.envs }

func (c *rawClient) applyLocked(e protocol.ActionEnvelope) {
	if st, ok := c.mirror[e.Channel]; ok && e.RejectionReason == nil {
		c.mirror[e.Channel] = protocol.Reduce(st, e.Action, protocol.Rules{})
	}
}

func (c *rawClient) absorbResultLocked(method string, r *jsonrpc.Response) {
	if r.Error != nil {
		return
	}
	setSnaps := func(snaps []protocol.Snapshot) {
		for _, s := range snaps {
			c.mirror[s.Resource] = s.State.Variant
		}
	}
	switch method {
	case "initialize":
		var res protocol.InitializeResult
		if json.Unmarshal(r.Result, &res) == nil {
			setSnaps(res.Snapshots)
		}
	case "subscribe":
		var res protocol.SubscribeResult
		if json.Unmarshal(r.Result, &res) == nil && res.Snapshot != nil {
			setSnaps([]protocol.Snapshot{*res.Snapshot})
		}
	case "reconnect":
		var res protocol.ReconnectResult
		if json.Unmarshal(r.Result, &res) != nil {
			return
		}
		switch v := res.Variant.(type) {
		case protocol.ReconnectSnapshotResult:
			setSnaps(v.Snapshots)
		case protocol.ReconnectReplayResult:
			for _, e := range v.Actions {
				c.applyLocked(e)
			}
		}
	}
}

// sessionMirror is the client's view of a session (call with c.mu held).
func (c *rawClient) sessionMirrorLocked(uri string) protocol.SessionState {
	s, _ := c.mirror[uri].(protocol.SessionState)
	return s
}

// waitServer waits until the mirrored session shows server id in kind.
func (c *rawClient) waitServer(session, id, kind string) protocol.McpServerCustomization {
	c.t.Helper()
	var m protocol.McpServerCustomization
	c.waitUntil(id+" "+kind, func() bool {
		var ok bool
		m, _, ok = findServer(c.sessionMirrorLocked(session), id)
		return ok && m.State.Kind() == kind
	})
	return m
}

// waitEnvelope waits for an envelope on channel matching pred and returns it.
func (c *rawClient) waitEnvelope(what, channel string, pred func(protocol.ActionEnvelope) bool) protocol.ActionEnvelope {
	c.t.Helper()
	var got protocol.ActionEnvelope
	c.waitUntil(what, func() bool {
		for _, e := range c.envelopesLocked() {
			if (channel == "" || e.Channel == channel) && pred(e) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

func (c *rawClient) waitEcho(what, channel string, seq int64) protocol.ActionEnvelope {
	c.t.Helper()
	return c.waitEnvelope(what, channel, func(e protocol.ActionEnvelope) bool {
		return e.Origin != nil && e.Origin.ClientID == c.clientID && e.Origin.ClientSeq == seq
	})
}

func (c *rawClient) countEnvelopes(pred func(protocol.ActionEnvelope) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.envelopesLocked() {
		if pred(e) {
			n++
		}
	}
	return n
}

func (c *rawClient) lastSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var last int64
	for _, e := range c.envelopesLocked() {
		last = max(last, e.ServerSeq)
	}
	return last
}

func isType(kind string) func(protocol.ActionEnvelope) bool {
	return func(e protocol.ActionEnvelope) bool { return e.Action.Kind() == kind }
}

func serverState(id, kind string) func(protocol.ActionEnvelope) bool {
	return func(e protocol.ActionEnvelope) bool {
		a, ok := e.Action.Variant.(protocol.SessionMcpServerStateChangedAction)
		return ok && a.ID == id && a.State.Kind() == kind
	}
}

func userMessage(text string) protocol.Message {
	return protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: protocol.MessageKindUser}}
}

func turnStarted(id, text string) protocol.ChatTurnStartedAction {
	return protocol.ChatTurnStartedAction{TurnID: id, StartedAt: isoTime(time.Now()), Message: userMessage(text)}
}

// ---- OAuth: a real authorization-code + PKCE grant against the demo AS ----

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
		_, _ = w.Write([]byte("signed in"))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return cb
}

// registerClient performs RFC 7591 dynamic registration, as a client must
// when a challenge carries no oauthClient.
func registerClient(t *testing.T, issuer, redirect string, scopes []string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"client_name": "demohost test", "scope": strings.Join(scopes, " "),
	})
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, issuer+authserver.RegisterPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	id, _ := m["client_id"].(string)
	if resp.StatusCode != http.StatusCreated || id == "" {
		t.Fatalf("register: status %d %v", resp.StatusCode, m)
	}
	return id
}

// grant runs authorize (headless approve) → loopback callback → token
// exchange with PKCE and the RFC 8707 resource, returning the access token.
func grant(t *testing.T, issuer, clientID string, cb *callback, resource string, scopes []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	conf := &oauth2.Config{ClientID: clientID, RedirectURL: cb.URL, Scopes: scopes, Endpoint: oauth2.Endpoint{
		AuthURL: issuer + authserver.AuthorizePath, TokenURL: issuer + authserver.TokenPath, AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	state := "state-" + oauth2.GenerateVerifier()[:16]
	redirect, err := authserver.ApproveHeadless(ctx, nil, conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)))
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	if err := authserver.RedirectError(redirect); err != nil {
		t.Fatalf("authorization refused: %v", err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, redirect.String(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("deliver callback: %v", err)
	}
	resp.Body.Close()
	var q url.Values
	select {
	case q = <-cb.hits:
	case <-ctx.Done():
		t.Fatal("callback never hit")
	}
	if q.Get("state") != state {
		t.Fatalf("state mismatch")
	}
	tok, err := conf.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatalf("token exchange: %v", err)
	}
	return tok.AccessToken
}

// signInGitHub runs the demo's GitHub sign-in on c (whose client watches
// the demo session): a PKCE grant pushed with authenticate makes the
// protected server ready. It returns the resource and the token.
func signInGitHub(t *testing.T, h *Host, c *rawClient) (resource, token string) {
	t.Helper()
	c.waitServer(DemoSessionURI, GitHubServerID, "authRequired")
	resource = resourceURL(h, GitHubResourcePath)
	token = grant(t, h.AuthIssuer(), h.Auth().PublicClientID(), startCallback(t), resource, GitHubScopes)
	c.mustCall("authenticate", protocol.AuthenticateParams{Resource: resource, Token: token}, nil)
	c.waitServer(DemoSessionURI, GitHubServerID, "ready")
	return resource, token
}

func resourceURL(h *Host, path string) string {
	u := strings.TrimPrefix(strings.TrimSuffix(h.URL(), "/"), "ws://")
	return fmt.Sprintf("http://%s%s", u, path)
}
