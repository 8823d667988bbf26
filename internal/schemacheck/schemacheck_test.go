package schemacheck

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestValidateMessage(t *testing.T) {
	v := MustLoad(t)
	tests := []struct {
		name    string
		frame   string
		wantErr string // "" means valid
	}{
		{name: "initialize request", frame: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"channel":"ahp-root://","protocolVersions":["0.6.0"],"clientId":"c1","clientInfo":{"name":"ahptui","version":"0.1.0"},"initialSubscriptions":["ahp-root://"],"locale":null}}`},
		{name: "dispatchAction ok", frame: `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/c1","clientSeq":1,"action":{"type":"chat/turnStarted","turnId":"t1","startedAt":"2026-01-01T00:00:00Z","message":{"text":"Hi","origin":{"kind":"user"}}}}}`},
		{name: "dispatchAction bad action", frame: `{"jsonrpc":"2.0","method":"dispatchAction","params":{"channel":"ahp-chat:/c1","clientSeq":1,"action":{"type":"chat/turnStarted","turnId":7}}}`, wantErr: "dispatchAction params"},
		{name: "action notification host-originated", frame: `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"session/titleChanged","title":"Hello"},"serverSeq":7}}`},
		{name: "action notification missing serverSeq", frame: `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-session:/s1","action":{"type":"session/titleChanged","title":"Hello"}}}`, wantErr: "serverSeq"},
		{name: "sessionAdded notification", frame: `{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"channel":"ahp-root://","summary":{"resource":"ahp-session:/s1","provider":"demo","title":"t","status":72,"createdAt":"2024-01-01T00:00:00.001Z","modifiedAt":"2024-01-01T00:00:00.002Z"}}}`},
		{name: "unknown method", frame: `{"jsonrpc":"2.0","id":2,"method":"frobnicate","params":{}}`, wantErr: "unknown AHP method"},
		{name: "response is well-formed", frame: `{"jsonrpc":"2.0","id":1,"error":{"code":-32007,"message":"auth"}}`},
		{name: "not JSON-RPC", frame: `{"id":1,"method":"initialize"}`, wantErr: "jsonrpc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.ValidateMessage([]byte(tt.frame))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("want an error mentioning %q, got %v", tt.wantErr, err)
			}
		})
	}
}

func TestBadActionErrorIsReadable(t *testing.T) {
	v := MustLoad(t)
	err := v.Validate("StateAction", map[string]any{"type": "session/titleChanged", "title": 42})
	if err == nil {
		t.Fatal("a title that is a number must fail")
	}
	msg := err.Error()
	t.Logf("error text:\n%s", msg)
	if n := strings.Count(msg, "\n"); n > 12 {
		t.Errorf("error has %d lines; unrelated action variants were not pruned:\n%s", n, msg)
	}
	for _, want := range []string{"StateAction", "title"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not mention %q:\n%s", want, msg)
		}
	}
}

func TestPatchesApplied(t *testing.T) {
	v := MustLoad(t)
	tests := []struct {
		def   string
		value string
	}{
		// Patch 1: StateAction compiles at all.
		{"StateAction", `{"type":"session/titleChanged","title":"x"}`},
		// Patch 2: origin is optional on host-originated envelopes.
		{"ActionEnvelope", `{"channel":"ahp-session:/s1","action":{"type":"session/titleChanged","title":"x"},"serverSeq":1,"origin":null}`},
		// Patch 3: combined and future status bits.
		{"SessionStatus", `72`},
		{"SessionStatus", `2147483720`},
		// Patch 2, "undefined to clear" members: absent clears.
		{"StateAction", `{"type":"session/activityChanged"}`},
		{"StateAction", `{"type":"session/changesetsChanged"}`},
		{"StateAction", `{"type":"session/metaChanged"}`},
		{"StateAction", `{"type":"changeset/operationsChanged"}`},
	}
	for _, tt := range tests {
		if err := v.Validate(tt.def, json.RawMessage(tt.value)); err != nil {
			t.Errorf("%s %s: %v", tt.def, tt.value, err)
		}
	}
	if err := v.Validate("SessionStatus", -1); err == nil {
		t.Error("a negative status must fail")
	}
	if err := v.Validate("NoSuchType", 1); !errors.Is(err, ErrUnknownDef) {
		t.Errorf("unknown def: %v", err)
	}
}

func TestMethodTables(t *testing.T) {
	v := MustLoad(t)
	for method, want := range map[string]string{
		"initialize":     "InitializeParams",
		"reconnect":      "ReconnectParams",
		"dispatchAction": "DispatchActionParams",
		"resourceRead":   "ResourceReadParams",
		"listSessions":   "ListSessionsParams",
		"authenticate":   "AuthenticateParams",
		"action":         "ActionEnvelope",
		"auth/required":  "AuthRequiredParams",
	} {
		if got, ok := v.ParamsDef(method); !ok || got != want {
			t.Errorf("ParamsDef(%q) = %q, %v; want %q", method, got, ok, want)
		}
	}
	if got, _ := v.ResultDef("initialize"); got != "InitializeResult" {
		t.Errorf("ResultDef(initialize) = %q", got)
	}
	if _, ok := v.ParamsDef("base"); ok {
		t.Error("BaseParams is a mixin, not a method")
	}
	err := v.ValidateResult("initialize", json.RawMessage(`{"protocolVersion":"0.6.0","serverSeq":1,"snapshots":[]}`))
	if err != nil {
		t.Errorf("valid initialize result: %v", err)
	}
	if err := v.ValidateResult("initialize", json.RawMessage(`{"serverSeq":"x"}`)); err == nil {
		t.Error("invalid initialize result accepted")
	}
	if err := v.ValidateResponse("initialize", []byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"0.6.0","serverSeq":1,"snapshots":[]}}`)); err != nil {
		t.Errorf("valid initialize response: %v", err)
	}
	if err := v.ValidateResponse("initialize", []byte(`{"jsonrpc":"2.0","id":1,"result":{"serverSeq":1}}`)); err == nil {
		t.Error("initialize response without protocolVersion accepted")
	}
	if err := v.ValidateResponse("initialize", []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"no"}}`)); err != nil {
		t.Errorf("error response: %v", err)
	}
}

// Round-trip fixtures whose type is a $def must validate, except those that
// are deliberately outside the schema (forward-compatible unknown variants
// and kinds newer than the published schema).
func TestRoundTripFixtures(t *testing.T) {
	v := MustLoad(t)
	expectInvalid := map[string]string{
		"002-state-action-unknown-variant-preserved.json": "unknown action type must be kept by decoders, not accepted by the schema",
		"003-customization-unknown-type-preserved.json":   "unknown customization type, same reason",
	}
	files, err := filepath.Glob(filepath.Join(v.dir, "..", "test-cases", "round-trips", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no round-trip fixtures next to %s: %v", v.dir, err)
	}
	checked := 0
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var fx struct {
				Type  string          `json:"type"`
				Input json.RawMessage `json:"input"`
			}
			if err := json.Unmarshal(b, &fx); err != nil {
				t.Fatal(err)
			}
			if fx.Type == "JsonRpcMessage" {
				checked++
				if err := v.ValidateMessage(fx.Input); err != nil && !strings.Contains(err.Error(), "params") {
					t.Errorf("frame is not well-formed: %v", err)
				}
				return
			}
			if !v.HasDef(fx.Type) {
				t.Skipf("type %s is not a schema $def", fx.Type)
			}
			checked++
			err = v.Validate(fx.Type, fx.Input)
			if why, bad := expectInvalid[name]; bad {
				if err == nil {
					t.Errorf("expected invalid (%s), but it validated", why)
				}
				return
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	if checked < 10 {
		t.Fatalf("only %d fixtures checked", checked)
	}
}

func TestConcurrentValidate(t *testing.T) {
	v := MustLoad(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			for _, def := range []string{"StateAction", "InitializeParams", "ActionEnvelope", "SessionSummary"} {
				_ = v.Validate(def, map[string]any{})
			}
		})
	}
	wg.Wait()
}

func TestSchemaDirOverride(t *testing.T) {
	t.Setenv("AHP_SCHEMA_DIR", "/nonexistent/ahp")
	d, err := schemaDir()
	if err != nil || d != "/nonexistent/ahp" {
		t.Fatalf("schemaDir = %q, %v", d, err)
	}
	if _, err := LoadDir(d); err == nil || !strings.Contains(err.Error(), "AHP_SCHEMA_DIR") {
		t.Fatalf("missing dir error should tell the user what to set: %v", err)
	}
}

// The 1.0.0 schema is one file holding every $def; the same Validator
// loads it and checks 1.0 frames (commands by their Params types, actions
// through ActionEnvelope).
func TestValidate10Frames(t *testing.T) {
	v := MustLoad10(t)
	if !v.HasDef("ChatTurnResumeAction") || !v.HasDef("ErrorResponsePart") {
		t.Fatal("the 1.0 $defs are missing")
	}
	if def, ok := v.ParamsDef("createChat"); !ok || def != "CreateChatParams" {
		t.Errorf("createChat params = %q, %v", def, ok)
	}
	tests := []struct {
		name, frame, wantErr string
	}{
		{"initialize offering every version", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"channel":"ahp-root://","protocolVersions":["1.0.0","0.10.0","0.9.0","0.6.0"],"clientId":"c1"}}`, ""},
		{"chat/error with an error part", `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/c","serverSeq":3,"action":{"type":"chat/error","turnId":"t","duration":1,"part":{"kind":"error","error":{"errorType":"x","message":"m"},"resumable":true}}}}`, ""},
		{"chat/error in its 0.6 shape", `{"jsonrpc":"2.0","method":"action","params":{"channel":"ahp-chat:/c","serverSeq":3,"action":{"type":"chat/error","turnId":"t","duration":1,"error":{"errorType":"x","message":"m"}}}}`, "part"},
		{"createChat source without a kind", `{"jsonrpc":"2.0","id":2,"method":"createChat","params":{"channel":"ahp-session:/s","chat":"ahp-chat:/c","source":{"chat":"ahp-chat:/a","turnId":"t"}}}`, "kind"},
		{"authenticate with expiresIn", `{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"channel":"ahp-root://","resource":"https://r","token":"","expiresIn":60}}`, ""},
		{"authenticate with a zero expiresIn", `{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"channel":"ahp-root://","resource":"https://r","token":"t","expiresIn":0}}`, "expiresIn"},
		// Notifications: the hand-written params of notifications10.schema.json.
		{"sessionAdded with a 1.0 summary", `{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"channel":"ahp-root://","summary":{"resource":"ahp-session:/s","provider":"p","title":"T","status":1,"createdAt":"a","modifiedAt":"b","workingDirectories":["file:///w"],"chats":[{"resource":"ahp-chat:/c","title":"c"}]}}}`, ""},
		{"sessionAdded with a summary lacking its title", `{"jsonrpc":"2.0","method":"root/sessionAdded","params":{"channel":"ahp-root://","summary":{"resource":"ahp-session:/s","provider":"p","status":1,"createdAt":"a","modifiedAt":"b"}}}`, "title"},
		{"sessionSummaryChanged with only a title", `{"jsonrpc":"2.0","method":"root/sessionSummaryChanged","params":{"channel":"ahp-root://","session":"ahp-session:/s","changes":{"title":"x"}}}`, ""},
		{"sessionSummaryChanged with a 0.6 working directory string list", `{"jsonrpc":"2.0","method":"root/sessionSummaryChanged","params":{"channel":"ahp-root://","session":"ahp-session:/s","changes":{"workingDirectories":"file:///w"}}}`, "workingDirectories"},
		{"sessionRemoved without its session", `{"jsonrpc":"2.0","method":"root/sessionRemoved","params":{"channel":"ahp-root://"}}`, "session"},
		{"progress", `{"jsonrpc":"2.0","method":"root/progress","params":{"channel":"ahp-root://","progressToken":"p","progress":0.5,"total":1}}`, ""},
		{"progress without progress", `{"jsonrpc":"2.0","method":"root/progress","params":{"channel":"ahp-root://","progressToken":"p"}}`, "progress"},
		{"auth/required with the resource identifier", `{"jsonrpc":"2.0","method":"auth/required","params":{"channel":"ahp-root://","resource":"https://r","reason":"expired"}}`, ""},
		{"auth/required with the resource metadata and an unknown reason", `{"jsonrpc":"2.0","method":"auth/required","params":{"channel":"ahp-root://","resource":{"resource":"https://r","authorization_servers":["https://as"]},"reason":"x-later"}}`, ""},
		{"auth/required with metadata lacking its resource", `{"jsonrpc":"2.0","method":"auth/required","params":{"channel":"ahp-root://","resource":{"authorization_servers":["https://as"]}}}`, "resource"},
		{"otlp/exportLogs", `{"jsonrpc":"2.0","method":"otlp/exportLogs","params":{"channel":"ahp-root://","payload":{"resourceLogs":[]}}}`, ""},
	}
	for _, tt := range tests {
		err := v.ValidateMessage([]byte(tt.frame))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: err = %v, want one naming %q", tt.name, err, tt.wantErr)
		}
	}
}

// ForWire picks the schema of the negotiated wire by the wire's name
// (protocol.Wire's String), and refuses a wire it has no schema for.
func TestForWire(t *testing.T) {
	v06, err := ForWire(wireName("0.6"))
	if err != nil || v06 != MustLoad(t) {
		t.Fatalf("ForWire(0.6) = %p, %v; want the 0.6 validator", v06, err)
	}
	v10, err := ForWire(wireName("1.0"))
	if err != nil || v10 != MustLoad10(t) {
		t.Fatalf("ForWire(1.0) = %p, %v; want the 1.0 validator", v10, err)
	}
	if v06.HasDef("ChatTurnResumeAction") || !v10.HasDef("ChatTurnResumeAction") {
		t.Error("the 0.6 and 1.0 validators are mixed up")
	}
	if _, err := ForWire(wireName("unknown")); err == nil {
		t.Error("an unknown wire should have no schema")
	}
}

type wireName string

func (w wireName) String() string { return string(w) }

// reconnect's result has no union $def; its type picks the variant, in
// both versions.
func TestValidateReconnectResult(t *testing.T) {
	for name, v := range map[string]*Validator{"0.6": MustLoad(t), "1.0": MustLoad10(t)} {
		for _, tt := range []struct {
			result string
			ok     bool
		}{
			{`{"type":"replay","actions":[],"missing":[]}`, true},
			{`{"type":"snapshot","snapshots":[]}`, true},
			{`{"type":"replay","snapshots":[]}`, false},
			{`{"type":"snapshot","snapshots":[{"resource":"ahp-root://"}]}`, false},
			{`{"type":"later","x":1}`, false},
			{`[]`, false},
		} {
			err := v.ValidateResult("reconnect", json.RawMessage(tt.result))
			if (err == nil) != tt.ok {
				t.Errorf("%s: reconnect result %s: err = %v, want ok=%v", name, tt.result, err, tt.ok)
			}
		}
	}
}
