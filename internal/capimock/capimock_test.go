package capimock

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, path, token, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseData returns the data lines of an event stream.
func sseData(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

const shellTools = `"tools":[{"type":"function","function":{"name":"view","parameters":{"type":"object"}}},
 {"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"description":{"type":"string"},"mode":{"type":"string","enum":["sync","async"]}},"required":["command","description","mode"]}}}]`

func TestChatCompletionCallsTheShellTool(t *testing.T) {
	s, err := Start(Config{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp := post(t, s, "/chat/completions", Token,
		`{"model":"gpt-4.1","stream":true,"messages":[{"role":"system","content":"x"},{"role":"user","content":[{"type":"text","text":"please run touch"}]}],`+shellTools+`}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	data := sseData(t, resp.Body)
	if len(data) == 0 || data[len(data)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]: %q", data)
	}
	joined := strings.Join(data, "\n")
	var args map[string]any
	for _, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
			}
		}
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %q: %v", d, err)
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Name != "bash" {
					t.Fatalf("tool %q, want bash", tc.Function.Name)
				}
				_ = json.Unmarshal([]byte(tc.Function.Arguments), &args)
			}
		}
	}
	if args["command"] != "touch "+ShellFile || args["mode"] != "sync" || args["description"] == nil {
		t.Fatalf("bash arguments %v, want command touch, the required description and mode filled\n%s", args, joined)
	}
	if !strings.Contains(joined, `"finish_reason":"tool_calls"`) {
		t.Fatalf("no tool_calls finish:\n%s", joined)
	}

	// The tool's result comes back: the answer is text naming it.
	resp = post(t, s, "/chat/completions", Token, `{"stream":true,"messages":[{"role":"user","content":"run ls"},
	 {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"c1","content":"a.txt"}],`+shellTools+`}`)
	text := ""
	for _, d := range sseData(t, resp.Body) {
		var c struct {
			Choices []struct{ Delta struct{ Content string } }
		}
		_ = json.Unmarshal([]byte(d), &c)
		for _, ch := range c.Choices {
			text += ch.Delta.Content
		}
	}
	if !strings.Contains(text, "bash tool finished") || !strings.Contains(text, Reply) {
		t.Fatalf("answer after the tool result: %q", text)
	}
}

func TestRefusesAnotherToken(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if resp := post(t, s, "/chat/completions", "gho_wrong", `{"messages":[]}`); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: status %d, want 401", resp.StatusCode)
	}
	if resp := post(t, s, "/chat/completions", "", `{"messages":[]}`); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: status %d, want 401", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/copilot_internal/user", nil)
	req.Header.Set("Authorization", "token "+Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var u struct{ Endpoints map[string]string }
	if err := json.NewDecoder(resp.Body).Decode(&u); err != nil || u.Endpoints["api"] != s.URL {
		t.Fatalf("copilot user endpoints %v (%v), want api %s", u.Endpoints, err, s.URL)
	}
}

func TestUnknownRequestIsLogged(t *testing.T) {
	var logged []string
	s, err := Start(Config{Logf: func(f string, a ...any) { logged = append(logged, f) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if resp := post(t, s, "/no/such/endpoint", Token, `{}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "unknown request") {
		t.Fatalf("logged %q", logged)
	}
	if r := s.Requests(); len(r) != 1 || r[0].Known || !r[0].Auth {
		t.Fatalf("requests %+v", r)
	}
}
