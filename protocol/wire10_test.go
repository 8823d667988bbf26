package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// Each DELTA §13 decoder break decodes into the 1.0 types, the typed
// value says what the item is about, and re-encoding gives the input back.
func TestDecodes10Shapes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		into  func() any
		check func(any) bool
	}{
		{"§6 chat/error carries an error response part",
			`{"type":"chat/error","turnId":"t1","duration":12.5,"part":{"kind":"error","error":{"errorType":"overloaded","message":"busy"},"resumable":true}}`,
			func() any { return new(StateAction) },
			func(v any) bool {
				a, ok := v.(*StateAction).Variant.(ChatErrorAction)
				return ok && a.Part.Resumable != nil && *a.Part.Resumable && a.Part.Error.Message == "busy"
			}},
		{"§6 error is a response part kind",
			`{"kind":"error","error":{"errorType":"x","message":"m"}}`,
			func() any { return new(ResponsePart) },
			func(v any) bool { _, ok := v.(*ResponsePart).Variant.(ErrorResponsePart); return ok }},
		{"§6 chat/turnResume is an action",
			`{"type":"chat/turnResume","turnId":"t1"}`,
			func() any { return new(StateAction) },
			func(v any) bool {
				a, ok := v.(*StateAction).Variant.(ChatTurnResumeAction)
				return ok && a.TurnID == "t1"
			}},
		{"§7 tool input by reference",
			`{"status":"running","toolCallId":"tc","toolName":"read","displayName":"Read","invocationMessage":"Reading","toolInput":{"uri":"ahp-content:/x","contentType":"application/json"},"confirmed":"not-needed"}`,
			func() any { return new(ToolCallState) },
			func(v any) bool {
				s, ok := v.(*ToolCallState).Variant.(ToolCallRunningState)
				return ok && bytes.HasPrefix(s.ToolInput, []byte(`{"uri"`))
			}},
		{"§8 delta content optional",
			`{"type":"chat/toolCallDelta","turnId":"t","toolCallId":"tc"}`,
			func() any { return new(StateAction) },
			func(v any) bool { _, ok := v.(*StateAction).Variant.(ChatToolCallDeltaAction); return ok }},
		{"§4 MCP server enablement list",
			`{"type":"mcpServer","id":"m","uri":"file:///m","name":"M","enablement":[{"kind":"session","enabled":false},{"kind":"workspace","uri":"file:///w","enabled":true},{"kind":"global","enabled":true}],"state":{"kind":"starting","blocking":true}}`,
			func() any { return new(McpServerCustomization) },
			func(v any) bool {
				c := v.(*McpServerCustomization)
				st, ok := c.State.Variant.(McpServerStartingState)
				_, ws := c.Enablement[1].Variant.(CustomizationWorkspaceEnablement)
				return ok && st.Blocking != nil && *st.Blocking && len(c.Enablement) == 3 && ws
			}},
		{"§5 customizationToggled replaces the decision list",
			`{"type":"session/customizationToggled","id":"m","enablement":[{"kind":"session","enabled":true}]}`,
			func() any { return new(StateAction) },
			func(v any) bool {
				a, ok := v.(*StateAction).Variant.(SessionCustomizationToggledAction)
				return ok && len(a.Enablement) == 1
			}},
		{"§9 createChat source has a kind",
			`{"channel":"ahp-session:/s","chat":"ahp-chat:/c","source":{"kind":"sideChat","chat":"ahp-chat:/a","turnId":"t","selection":{"text":"x"}},"workingDirectories":["file:///w"]}`,
			func() any { return new(CreateChatParams) },
			func(v any) bool {
				p := v.(*CreateChatParams)
				_, ok := p.Source.Variant.(SideChatSource)
				return ok && len(p.WorkingDirectories) == 1
			}},
		{"§12 lifecycle failed",
			`"failed"`,
			func() any { return new(SessionLifecycle) },
			func(v any) bool { return *v.(*SessionLifecycle) == SessionLifecycleFailed }},
		{"§14 terminal lifecycle",
			`{"status":"exited","exitCode":2}`,
			func() any { return new(TerminalLifecycleState) },
			func(v any) bool { return v.(*TerminalLifecycleState).Kind() == "exited" }},
		{"§15 side chat origin",
			`{"kind":"sideChat","chat":"ahp-chat:/a","turnId":"t"}`,
			func() any { return new(ChatOrigin) },
			func(v any) bool { return v.(*ChatOrigin).Kind() == "sideChat" }},
		{"§20 authenticate expiresIn",
			`{"channel":"ahp-root://","resource":"https://r","token":"","expiresIn":3600}`,
			func() any { return new(AuthenticateParams) },
			func(v any) bool { p := v.(*AuthenticateParams); return p.ExpiresIn != nil && *p.ExpiresIn == 3600 }},
		{"§13 terminal result on terminal content",
			`{"type":"terminal","resource":"ahp-terminal:/t","title":"sh","result":{"exitCode":0,"preview":"ok"}}`,
			func() any { return new(ToolResultContent) },
			func(v any) bool {
				c, ok := v.(*ToolResultContent).Variant.(ToolResultTerminalContent)
				return ok && c.Result != nil
			}},
	}
	schema := schema10(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.into()
			// The Go types named here spell their $defs exactly.
			def := reflect.TypeOf(v).Elem().Name()
			if err := schema.Validate(def, json.RawMessage(tt.in)); err != nil {
				t.Fatalf("the case is not a valid 1.0 %s: %v", def, err)
			}
			if err := json.Unmarshal([]byte(tt.in), v); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !tt.check(v) {
				t.Errorf("decoded %#v", v)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, []byte(tt.in), out) {
				t.Errorf("re-encoded differently:\n in  %s\n out %s", tt.in, out)
			}
		})
	}
}

// Unknown union variants (a later version's, or an x- extension) and
// @nonexhaustive enum values survive decoding and re-encoding verbatim.
func TestUnknownsKeptVerbatim(t *testing.T) {
	tests := []struct {
		in   string
		into func() any
	}{
		{`{"type":"x-acme/pinned","pinned":true,"n":1.50}`, func() any { return new(StateAction) }},
		{`{"kind":"integration","chat":"ahp-chat:/a","extra":[1,2]}`, func() any { return new(ChatOrigin) }},
		{`{"kind":"attribution","source":{"x":1}}`, func() any { return new(ResponsePart) }},
		{`{"kind":"organization","enabled":true}`, func() any { return new(CustomizationEnablement) }},
		{`{"kind":"paused","reason":"later"}`, func() any { return new(McpServerState) }},
		{`{"status":"detached"}`, func() any { return new(TerminalLifecycleState) }},
		{`"archived"`, func() any { return new(SessionLifecycle) }},
		{`{"kind":"starting","blocking":false,"future":{"a":null}}`, func() any { return new(McpServerState) }},
	}
	for _, tt := range tests {
		v := tt.into()
		if err := json.Unmarshal([]byte(tt.in), v); err != nil {
			t.Errorf("decode %s: %v", tt.in, err)
			continue
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Errorf("encode %s: %v", tt.in, err)
			continue
		}
		if k, ok := v.(interface{ Kind() string }); ok && k.Kind() == "" {
			t.Errorf("%s lost its discriminator", tt.in)
		}
		if tt.in != `{"kind":"starting","blocking":false,"future":{"a":null}}` && string(out) != tt.in {
			t.Errorf("unknown value not kept byte for byte:\n in  %s\n out %s", tt.in, out)
		}
	}
}

func TestAuthRequiredResourceBothForms(t *testing.T) {
	tests := []struct {
		in, resource string
		asString     bool
	}{
		{`{"channel":"ahp-root://","resource":"https://api.example","reason":"expired"}`, "https://api.example", true},
		{`{"channel":"ahp-root://","resource":{"resource":"https://api.example","authorization_servers":["https://as"],"scopes_supported":["a"]}}`, "https://api.example", false},
		{`{"channel":"ahp-root://","resource":"https://x","reason":"revoked"}`, "https://x", true},
	}
	for _, tt := range tests {
		var p AuthRequiredParams
		if err := json.Unmarshal([]byte(tt.in), &p); err != nil {
			t.Fatalf("decode %s: %v", tt.in, err)
		}
		if p.Resource.Resource != tt.resource || p.Resource.AsString != tt.asString {
			t.Errorf("%s: resource %+v", tt.in, p.Resource)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, []byte(tt.in), out) {
			t.Errorf("re-encoded differently:\n in  %s\n out %s", tt.in, out)
		}
	}
	var bad AuthRequiredParams
	if err := json.Unmarshal([]byte(`{"channel":"ahp-root://","resource":[1]}`), &bad); err == nil {
		t.Error("an array resource decoded")
	}
}

// Every generated 1.0 union keeps an unknown variant byte for byte, and
// every string enum an unknown value (the @nonexhaustive rule, DELTA §11).
func TestUnknownUnionVariants(t *testing.T) {
	wiretest.UnknownUnionVariantsKept(t, unionDiscriminators, func(name string) (any, bool) {
		mk, ok := wireTypes[name]
		if !ok {
			return nil, false
		}
		return mk(), true
	})
}

func TestStringEnumsKeepUnknownValues(t *testing.T) {
	if n := wiretest.StringEnumsOpen(t, wireTypes); n < 10 {
		t.Errorf("only %d string enums checked; the registry lost some", n)
	}
}

// TestDecodeSnapshotStateByChannel decodes a snapshot state as the type its
// channel URI names, canvas (1.0) included; a scheme this version does not
// know keeps the state verbatim instead of failing.
func TestDecodeSnapshotStateByChannel(t *testing.T) {
	tests := []struct {
		channel, state, kind string
		want                 SnapshotStateVariant
	}{
		{"ahp-root://", `{"agents":[]}`, "root", RootState{}},
		{"ahp-session:/s1", `{"provider":"p","title":"T","status":1,"lifecycle":"failed","activeClients":[],"chats":[]}`, "session", SessionState{}},
		{"ahp-session:/s1/annotations", `{"annotations":[]}`, "annotations", AnnotationsState{}},
		{"ahp-chat:/s1/c1", `{"resource":"ahp-chat:/s1/c1","title":"C","status":1,"modifiedAt":"x","turns":[]}`, "chat", ChatState{}},
		{"ahp-terminal:/t1", `{"title":"sh","content":[],"lifecycle":{"status":"running"},"claim":{"kind":"client","clientId":"c"}}`, "terminal", TerminalState{}},
		{"agenthost-terminal://s/call_1", `{"title":"sh","content":[],"lifecycle":{"status":"running"},"claim":{"kind":"client","clientId":"c"}}`, "terminal", TerminalState{}},
		{"ahp-changeset:/s1/branch", `{"status":"recomputing","files":[]}`, "changeset", ChangesetState{}},
		// VS Code's host's own names (seen on 1.139.1's wire).
		{"ahp-session:/cc9db34c/changeset/uncommitted", `{"status":"computing","files":[]}`, "changeset", ChangesetState{}},
		{"agenthost-terminal://shell/a1/b2", `{"title":"bash","content":[],"lifecycle":{"status":"running"},"claim":{"kind":"client","clientId":"c"}}`, "terminal", TerminalState{}},
		{"ahp-resource-watch:/w1", `{"root":"file:///w","recursive":true}`, "resourceWatch", ResourceWatchState{}},
		{"ahp-canvas:/i1", `{"instanceId":"i1","extensionId":"e","canvasId":"c","url":"http://127.0.0.1:5173/"}`, "canvas", CanvasState{}},
		{"ahp-automations://", `{"automations":[]}`, "", UnknownSnapshotState{}},
	}
	for _, tt := range tests {
		t.Run(tt.channel, func(t *testing.T) {
			if k := ChannelKind(tt.channel); k != tt.kind {
				t.Errorf("ChannelKind = %q, want %q", k, tt.kind)
			}
			st, err := DecodeSnapshotState(tt.channel, json.RawMessage(tt.state))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprintf("%T", st.Variant), fmt.Sprintf("%T", tt.want); got != want {
				t.Fatalf("decoded as %s, want %s", got, want)
			}
			out, err := json.Marshal(st.Variant)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, []byte(tt.state), out) {
				t.Errorf("re-encoded as %s, want %s", out, tt.state)
			}
		})
	}
}
