package ahp06

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// newWireValue returns a pointer to a new zero value of the wire type the
// fixtures call name: every generated type plus the hand-written ones.
func newWireValue(name string) (any, bool) {
	if f, ok := wireTypes[name]; ok {
		return f(), true
	}
	switch name {
	case "StringOrMarkdown":
		return new(StringOrMarkdown), true
	case "JsonPrimitive":
		return new(JSONPrimitive), true
	case "JsonRpcMessage":
		return new(JSONRPCMessage), true
	}
	return nil, false
}

// roundTrip decodes in as the named type and encodes it again.
func roundTrip(typ string, in []byte) ([]byte, error) {
	v, ok := newWireValue(typ)
	if !ok {
		return nil, fmt.Errorf("no Go type for wire type %q", typ)
	}
	if err := json.Unmarshal(in, v); err != nil {
		return nil, fmt.Errorf("decode as %s: %w", typ, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", typ, err)
	}
	return out, nil
}

type roundTripFixture struct {
	Name              string            `json:"name"`
	Group             string            `json:"group"`
	Description       string            `json:"description"`
	Type              string            `json:"type"`
	Input             json.RawMessage   `json:"input"`
	AcceptableOutputs []json.RawMessage `json:"acceptableOutputs"`
}

func TestRoundTripFixtures(t *testing.T) {
	dir := wiretest.FixtureDir(t, "round-trips")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no round-trip fixtures in %s (%v)", dir, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var fx roundTripFixture
			if err := json.Unmarshal(data, &fx); err != nil {
				t.Fatalf("%s: not a round-trip fixture: %v", file, err)
			}
			if len(fx.AcceptableOutputs) != 1 {
				t.Fatalf("%s: want exactly one acceptableOutputs entry, got %d", file, len(fx.AcceptableOutputs))
			}
			out, err := roundTrip(fx.Type, fx.Input)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if d := wiretest.JSONDiff(fx.AcceptableOutputs[0], out); d != "" {
				t.Errorf("%s: %s re-encoded differently from acceptableOutputs[0] (%s):\n%s\ngot: %s",
					filepath.Base(file), fx.Type, fx.Description, d, out)
			}
		})
	}
}

// TestRoundTripJsonDiff keeps the comparator honest: it must see presence,
// null and value differences but not key order or a number's spelling.
func TestRoundTripJsonDiff(t *testing.T) {
	tests := []struct {
		want, got string
		same      bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`{"a":1}`, `{"a":1,"origin":null}`, false},
		{`{"a":null}`, `{}`, false},
		{`{"a":2148131814}`, `{"a":2148131814.0}`, true},
		{`[0, 0.0, 0e0, -0, 1e3, 1.5]`, `[0e0, 0, 0.0, 0, 1000, 15e-1]`, true},
		{`{"a":9007199254740993}`, `{"a":9007199254740992}`, false},
		{`{"a":1}`, `{"a":"1"}`, false},
		{`{"a":0.1}`, `{"a":0.10000000000000001}`, false},
		{`{"a":[1]}`, `{"a":[1,2]}`, false},
		{`"hello"`, `{"markdown":"hello"}`, false},
	}
	for _, tt := range tests {
		if d := wiretest.JSONDiff([]byte(tt.want), []byte(tt.got)); (d == "") != tt.same {
			t.Errorf("wiretest.JSONDiff(%s, %s) = %q, want same=%v", tt.want, tt.got, d, tt.same)
		}
	}
}

// Every generated union must keep a variant it does not know, byte for byte.
func TestRoundTripUnknownUnionVariants(t *testing.T) {
	wiretest.UnknownUnionVariantsKept(t, unionDiscriminators, newWireValue)
}

// Every string enum keeps a value it does not know.
func TestStringEnumsKeepUnknownValues(t *testing.T) {
	if n := wiretest.StringEnumsOpen(t, wireTypes); n < 10 {
		t.Errorf("only %d string enums checked; the registry lost some", n)
	}
}

// A variant built in Go without its discriminator still encodes it, and
// decodes back to the same variant type.
func TestRoundTripVariantDiscriminatorForced(t *testing.T) {
	tests := []struct {
		name    string
		value   any
		want    string
		decoded any
	}{
		{"delta", NewStateAction(ChatDeltaAction{TurnID: "t1", PartID: "p1", Content: "hi"}),
			`{"turnId":"t1","partId":"p1","content":"hi","type":"chat/delta"}`, ChatDeltaAction{}},
		{"denied", NewStateAction(ChatToolCallDeniedAction{TurnID: "t", ToolCallID: "c", Reason: "denied"}),
			`{"turnId":"t","toolCallId":"c","type":"chat/toolCallConfirmed","approved":false,"reason":"denied"}`, ChatToolCallDeniedAction{}},
		{"approved", NewStateAction(ChatToolCallApprovedAction{TurnID: "t", ToolCallID: "c", Confirmed: ToolCallConfirmationReasonUserAction}),
			`{"turnId":"t","toolCallId":"c","type":"chat/toolCallConfirmed","approved":true,"confirmed":"user-action"}`, ChatToolCallApprovedAction{}},
		{"running", NewToolCallState(ToolCallRunningState{ToolCallID: "c", ToolName: "x", DisplayName: "X", InvocationMessage: protocol.PlainString("go"), ToolInput: ptr("{}")}),
			``, ToolCallRunningState{}},
		{"integer question keeps kind", NewChatInputQuestion(ChatInputNumberQuestion{ID: "q", Message: "m", Kind: "integer"}),
			`{"id":"q","message":"m","kind":"integer"}`, ChatInputNumberQuestion{}},
		{"number question default kind", NewChatInputQuestion(ChatInputNumberQuestion{ID: "q", Message: "m"}),
			`{"id":"q","message":"m","kind":"number"}`, ChatInputNumberQuestion{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := json.Marshal(tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != "" {
				if d := wiretest.JSONDiff([]byte(tt.want), out); d != "" {
					t.Fatalf("encoded %s:\n%s", out, d)
				}
			}
			back := reflect.New(reflect.TypeOf(tt.value))
			if err := json.Unmarshal(out, back.Interface()); err != nil {
				t.Fatalf("decode %s: %v", out, err)
			}
			variant := back.Elem().FieldByName("Variant").Interface()
			if reflect.TypeOf(variant) != reflect.TypeOf(tt.decoded) {
				t.Fatalf("decoded %s as %T, want %T", out, variant, tt.decoded)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestRoundTripSessionStatusKeepsUnknownBits(t *testing.T) {
	const in = `{"resource":"ahp-session:/s1","provider":"demo","title":"t","status":2147483720,"createdAt":"a","modifiedAt":"b"}`
	var s SessionSummary
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if s.Status != 2147483720 || !s.Status.Has(SessionStatusInProgress) || !s.Status.Has(SessionStatusIsArchived) || s.Status.Has(SessionStatusIdle) {
		t.Fatalf("status = %d, want 2147483720 with InProgress and IsArchived set", s.Status)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if d := wiretest.JSONDiff([]byte(in), out); d != "" {
		t.Fatalf("re-encoded %s:\n%s", out, d)
	}
	var combined SessionStatus
	if err := json.Unmarshal([]byte("72"), &combined); err != nil || combined != SessionStatusInProgress|SessionStatusIsArchived {
		t.Fatalf("72 decoded as %d, %v", combined, err)
	}
}

// Large integers must encode as plain integers: no exponent, no decimals.
func TestRoundTripLargeIntegers(t *testing.T) {
	in := `{"channel":"ahp-session:/s1","action":{"type":"terminal/commandExecuted","commandId":"c","commandLine":"ls","timestamp":1700000000000},"serverSeq":2147483720,"origin":{"clientId":"c","clientSeq":9007199254740993}}`
	out, err := roundTrip("ActionEnvelope", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1700000000000", "2147483720", "9007199254740993"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("re-encoded %s lost %s", out, want)
		}
	}
}

// A 0.6 snapshot keeps its state raw: which shape it has depends on the
// channel, and convert lifts it to the 1.0 model by that channel. So any
// state, of a known channel kind or not, survives byte for byte.
func TestRoundTripSnapshotStateKeptRaw(t *testing.T) {
	for _, tt := range []struct{ resource, state string }{
		{"ahp-root://", `{"agents":[]}`},
		{"ahp-session:/s1", `{"provider":"p","title":"t","status":1,"lifecycle":"creationFailed","activeClients":[],"chats":[]}`},
		{"ahp-terminal:/t1", `{"title":"sh","claim":{"kind":"client","clientId":"c"},"content":[],"exitCode":2}`},
		{"ahp-future:/x", `{"whatever":true}`},
	} {
		in := fmt.Sprintf(`{"resource":%q,"state":%s,"fromSeq":3}`, tt.resource, tt.state)
		var s Snapshot
		if err := json.Unmarshal([]byte(in), &s); err != nil {
			t.Fatalf("%s: %v", tt.resource, err)
		}
		if string(s.State) != tt.state {
			t.Errorf("%s: state kept as %s, want %s", tt.resource, s.State, tt.state)
		}
		out, _ := json.Marshal(s)
		if d := wiretest.JSONDiff([]byte(in), out); d != "" {
			t.Errorf("%s: re-encoded %s:\n%s", tt.resource, out, d)
		}
	}
}

func TestRoundTripStringOrMarkdownForms(t *testing.T) {
	for _, in := range []string{`"plain"`, `{"markdown":"**md**"}`, `""`} {
		out, err := roundTrip("StringOrMarkdown", []byte(in))
		if err != nil || string(out) != in {
			t.Errorf("StringOrMarkdown %s → %s, %v", in, out, err)
		}
	}
	if _, err := roundTrip("StringOrMarkdown", []byte(`42`)); err == nil {
		t.Error("StringOrMarkdown accepted a number")
	}
}

func TestRoundTripJsonRpcMessageKinds(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`{"jsonrpc":"2.0","id":"a","method":"m","params":{"x":1}}`, protocol.JsonRpcRequest{}},
		{`{"jsonrpc":"2.0","method":"action","params":{}}`, protocol.JsonRpcNotification{}},
		{`{"jsonrpc":"2.0","id":7,"result":null}`, protocol.JsonRpcSuccessResponse{}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse","data":{"k":[1]}}}`, protocol.JsonRpcErrorResponse{}},
	}
	for _, tt := range tests {
		var m JSONRPCMessage
		if err := json.Unmarshal([]byte(tt.in), &m); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if reflect.TypeOf(m.Variant) != reflect.TypeOf(tt.want) {
			t.Errorf("%s decoded as %T, want %T", tt.in, m.Variant, tt.want)
		}
		out, _ := json.Marshal(m)
		if d := wiretest.JSONDiff([]byte(tt.in), out); d != "" {
			t.Errorf("%s re-encoded as %s:\n%s", tt.in, out, d)
		}
	}
	var m JSONRPCMessage
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":1}`), &m); err == nil {
		t.Error("a message with neither method, result nor error decoded without error")
	}
}

// reducerStateTypes maps a reducer fixture's `reducer` to its state type.
var reducerStateTypes = map[string]string{
	"root": "RootState", "session": "SessionState", "chat": "ChatState", "terminal": "TerminalState",
	"changeset": "ChangesetState", "annotations": "AnnotationsState", "resourceWatch": "ResourceWatchState",
}

// The reducer fixtures are the widest sample of real wire shapes: every
// state and action in them must decode into the generated types and
// re-encode unchanged (after dropping nulls, which those fixtures use for
// "absent"). This is what caught the schema's lossy FileEdit.content and
// the `T | undefined` fields listed as required.
func TestRoundTripReducerFixtureShapes(t *testing.T) {
	for _, f := range wiretest.LoadReducerFixtures(t, wiretest.FixtureDir(t, "reducers")) {
		t.Run(f.Name, func(t *testing.T) {
			if f.Err != nil {
				t.Fatal(f.Err)
			}
			fx := f.Fixture
			st, ok := reducerStateTypes[fx.Reducer]
			if !ok {
				t.Fatalf("%s: unknown reducer %q", f.Name, fx.Reducer)
			}
			check := func(what, typ string, raw json.RawMessage) {
				var v any
				if err := wiretest.DecodeNumbers(raw, &v); err != nil {
					t.Errorf("%s %s: %v", f.Name, what, err)
					return
				}
				clean, _ := json.Marshal(wiretest.DropNulls(v))
				out, err := roundTrip(typ, clean)
				if err != nil {
					t.Errorf("%s %s: %v", f.Name, what, err)
					return
				}
				if d := wiretest.JSONDiff(clean, out); d != "" {
					t.Errorf("%s %s (%s) re-encoded differently:\n%s", f.Name, what, typ, d)
				}
			}
			check("initial", st, fx.Initial)
			check("expected", st, fx.Expected)
			for i, a := range fx.Actions {
				check(fmt.Sprintf("actions[%d]", i), "StateAction", a)
			}
		})
	}
}

// TestFixturesFromAHPTestCases: AHP_TEST_CASES points the round-trip runs
// at another fixture set; a file that does not parse fails only its own
// subtest and the good files beside it still pass.
func TestFixturesFromAHPTestCases(t *testing.T) {
	out, failed := wiretest.RunWithFixtures(t, "AHP_TEST_CASES", map[string]string{
		"reducers/z_good.json": `{"description":"agents replaced","reducer":"root","initial":{"agents":[]},` +
			`"actions":[{"type":"root/agentsChanged","agents":[]}],"expected":{"agents":[]}}`,
		"round-trips/z_good.json": `{"name":"n","group":"g","description":"d","type":"StateAction",` +
			`"input":{"type":"root/agentsChanged","agents":[]},"acceptableOutputs":[{"type":"root/agentsChanged","agents":[]}]}`,
		"reducers/a_broken.json":    `{"description": "cut off`,
		"round-trips/a_broken.json": `{"description": "cut off`,
	}, "^(TestRoundTripFixtures|TestRoundTripReducerFixtureShapes)$")
	if !failed {
		t.Fatalf("the child run should fail on the broken files:\n%s", out)
	}
	for _, test := range []string{"TestRoundTripFixtures", "TestRoundTripReducerFixtureShapes"} {
		for _, want := range []string{"--- FAIL: " + test + "/a_broken ", "--- PASS: " + test + "/z_good "} {
			if !strings.Contains(string(out), want) {
				t.Errorf("child output lacks %q", want)
			}
		}
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}
