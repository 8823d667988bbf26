// Package capimock is a loopback stand-in for the GitHub Copilot API and the
// few GitHub REST endpoints VS Code's agent host and its Copilot runtime call,
// so the interop suite can run real turns against the real host without a
// GitHub account. It is the one fake in that suite: the agent host itself is
// VS Code's own.
//
// It serves what the runtime of code-server 4.139.1 was seen to call: the
// user endpoints (/user, /copilot_internal/user), a token exchange
// (/copilot_internal/v2/token), the model list (/models), the runtime's
// "Auto" model (/models/session, /models/session/intent, /auto), the
// built-in GitHub MCP server (/mcp/..., an empty one), and streamed
// completions as OpenAI chat completions (/chat/completions) or responses
// (/responses). A completion calls a tool the request offers when the
// latest user prompt asks for one:
//
//	"run touch"    the shell tool with "touch shell-ran.txt": the host asks approval
//	"run ls"       the shell tool with ls: the host approves it by itself
//	"ask me"       the runtime's ask_user tool: an input request
//	"write hello"  a file-creating tool (create, write, edit)
//
// and otherwise streams a short text answer. After a tool result comes back
// it answers with text that names the tool. Every request is recorded, and
// unknown ones are logged through Config.Logf so a new runtime's calls are
// found from the test output.
package capimock

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Token is the GitHub token the mock accepts (Authorization: token/Bearer).
// Any other value is refused with 401, so a test sees that the token it
// pushed is the one the host uses.
const Token = "gho_ahptuiInteropMockToken0000000000"

// ModelID is the one chat model the mock lists.
const ModelID = "gpt-4.1"

// Reply is the text of an answer without a tool call; Streamed says the
// answer arrived in several chunks.
const Reply = "Hello from the Copilot API mock."

// Config configures a Server.
type Config struct {
	// Logf receives one line per unknown request and per error (e.g.
	// t.Logf). Nil discards them.
	Logf func(format string, args ...any)
	// Token overrides the accepted token (default Token).
	Token string
}

// Request is one request the mock received, for a test to inspect.
type Request struct {
	Method, Path string
	Auth         bool // carried the accepted token
	Body         string
	Known        bool
}

// Server is a running mock.
type Server struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	cfg  Config
	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	reqs []Request
}

// Start listens on a free loopback port and serves until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Token == "" {
		cfg.Token = Token
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("capimock: listen on loopback: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), cfg: cfg, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns a copy of every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Env is what the agent host's process needs to use this mock: the CAPI
// override the host reads, the runtime's API and GitHub API URLs, and the
// scenario-automation switch that lets both accept a loopback http URL.
func (s *Server) Env() []string {
	return []string{
		"VSCODE_AGENT_HOST_CAPI_URL_OVERRIDE=" + s.URL,
		"COPILOT_API_URL=" + s.URL,
		"COPILOT_DEBUG_GITHUB_API_URL=" + s.URL,
		"IS_SCENARIO_AUTOMATION=1",
	}
}

func (s *Server) authorized(r *http.Request) bool {
	a := r.Header.Get("Authorization")
	for _, p := range []string{"token ", "Bearer ", "bearer "} {
		if v, ok := strings.CutPrefix(a, p); ok && (v == s.cfg.Token || v == copilotToken) {
			return true
		}
	}
	return false
}

// copilotToken is what the token exchange hands out; requests to the
// completion endpoints may carry it instead of the GitHub token.
const copilotToken = "tid=ahptui-mock;exp=9999999999;sku=free"

func (s *Server) record(r *http.Request, body []byte, known bool) {
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, Auth: s.authorized(r), Body: string(body), Known: known})
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	// Enterprise-style prefixes (/api/v3) are accepted as well.
	path = strings.TrimPrefix(path, "/api/v3")
	handler, known := s.route(r.Method, path)
	s.record(r, body, known)
	if !known {
		s.cfg.Logf("capimock: unknown request %s %s (auth=%v) body=%.300s", r.Method, r.URL.String(), s.authorized(r), body)
		http.NotFound(w, r)
		return
	}
	if !s.authorized(r) && path != "/models" && path != "/_ping" {
		s.cfg.Logf("capimock: %s %s refused: no accepted token", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"message":"Bad credentials"}`)
		return
	}
	handler(w, r, body)
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, body []byte)

func (s *Server) route(method, path string) (handlerFunc, bool) {
	switch {
	case method == http.MethodGet && path == "/user":
		return s.user, true
	case method == http.MethodGet && path == "/copilot_internal/user":
		return s.copilotUser, true
	case method == http.MethodGet && path == "/copilot_internal/v2/token":
		return s.copilotToken, true
	case method == http.MethodGet && (path == "/models" || path == "/v1/models"):
		return s.models, true
	case method == http.MethodGet && strings.HasPrefix(path, "/models/"):
		return s.model, true
	case method == http.MethodPost && (path == "/chat/completions" || path == "/v1/chat/completions"):
		return s.chatCompletions, true
	case method == http.MethodPost && (path == "/responses" || path == "/v1/responses"):
		return s.responses, true
	case method == http.MethodPost && path == "/models/session":
		return s.autoSession, true
	case method == http.MethodPost && (path == "/auto" || path == "/models/session/intent"):
		return s.autoRoute, true
	case strings.HasPrefix(path, "/mcp"):
		return s.githubMCP, true
	case method == http.MethodPost && path == "/v1/messages":
		return s.messages, true
	case method == http.MethodGet && (path == "/_ping" || path == "/copilot_internal/content_exclusion"):
		return s.empty, true
	case method == http.MethodGet && path == "/copilot_internal/managed_settings":
		return s.empty, true
	case method == http.MethodPost && (path == "/telemetry" || strings.HasSuffix(path, "/telemetry")):
		return s.empty, true
	}
	return nil, false
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) empty(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{})
}

func (s *Server) user(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{"login": "ahptui-mock", "id": 4242, "name": "ahptui mock", "type": "User"})
}

func (s *Server) endpoints() map[string]any {
	return map[string]any{"api": s.URL, "proxy": s.URL, "telemetry": s.URL, "origin-tracker": s.URL}
}

func (s *Server) copilotUser(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{
		"login":                   "ahptui-mock",
		"access_type_sku":         "free_limited_copilot",
		"copilot_plan":            "individual",
		"chat_enabled":            true,
		"analytics_tracking_id":   "ahptui-mock",
		"assigned_date":           "2026-01-01T00:00:00Z",
		"can_signup_for_limited":  false,
		"codex_agent_enabled":     true,
		"is_mcp_enabled":          true,
		"restricted_telemetry":    false,
		"endpoints":               s.endpoints(),
		"organization_login_list": []string{},
		"quota_reset_date":        "2099-01-01",
		"quota_snapshots": map[string]any{
			"chat":                 map[string]any{"entitlement": 0, "remaining": 0, "percent_remaining": 100, "unlimited": true, "overage_permitted": false, "overage_count": 0, "quota_id": "chat"},
			"completions":          map[string]any{"entitlement": 0, "remaining": 0, "percent_remaining": 100, "unlimited": true, "overage_permitted": false, "overage_count": 0, "quota_id": "completions"},
			"premium_interactions": map[string]any{"entitlement": 0, "remaining": 0, "percent_remaining": 100, "unlimited": true, "overage_permitted": false, "overage_count": 0, "quota_id": "premium_interactions"},
		},
	})
}

func (s *Server) copilotToken(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{
		"token":        copilotToken,
		"expires_at":   time.Now().Add(time.Hour).Unix(),
		"refresh_in":   1500,
		"sku":          "free_limited_copilot",
		"chat_enabled": true,
		"endpoints":    s.endpoints(),
	})
}

func modelEntry() map[string]any {
	return map[string]any{
		"id": ModelID, "name": "GPT-4.1 (mock)", "vendor": "Azure OpenAI", "version": ModelID,
		"object": "model", "preview": false, "model_picker_enabled": true, "is_chat_default": true,
		"is_chat_fallback": true,
		"capabilities": map[string]any{
			"family": ModelID, "object": "model_capabilities", "type": "chat", "tokenizer": "o200k_base",
			"limits":   map[string]any{"max_context_window_tokens": 128000, "max_output_tokens": 16384, "max_prompt_tokens": 128000},
			"supports": map[string]any{"streaming": true, "tool_calls": true, "parallel_tool_calls": true, "vision": false},
		},
		"policy":              map[string]any{"state": "enabled", "terms": ""},
		"supported_endpoints": []string{"/chat/completions"},
		"billing":             map[string]any{"is_premium": false, "multiplier": 0},
	}
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{"object": "list", "data": []any{modelEntry()}})
}

func (s *Server) model(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, modelEntry())
}

// autoSession serves POST /models/session: the runtime's "Auto" model
// (the only one it offers by default) asks which models an auto session
// may use and gets the mock's one.
func (s *Server) autoSession(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{
		"available_models": []string{ModelID},
		"selected_model":   ModelID,
		"session_token":    "ahptui-mock-auto-session",
		"expires_at":       time.Now().Add(time.Hour).Unix(),
		"discounted_costs": map[string]any{ModelID: 0},
	})
}

// autoRoute serves POST /auto: the model the router picks for a prompt.
func (s *Server) autoRoute(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, map[string]any{"selected_model": ModelID, "candidate_models": []string{ModelID}})
}

// githubMCP is the GitHub MCP server the runtime adds to every session
// (POST /mcp/readonly, MCP over streamable HTTP): an empty one, so its
// badge reads ready rather than an error.
func (s *Server) githubMCP(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	switch req.Method {
	case "initialize":
		reply["result"] = map[string]any{"protocolVersion": req.Params.ProtocolVersion,
			"capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo":   map[string]any{"name": "github-mcp-server (ahptui mock)", "version": "0.0.0"}}
	case "tools/list":
		reply["result"] = map[string]any{"tools": []any{}}
	case "ping":
		reply["result"] = map[string]any{}
	default:
		reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
	}
	writeJSON(w, reply)
}
