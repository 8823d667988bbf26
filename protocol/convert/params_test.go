package convert

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ahptui/ahptui/internal/schemacheck"
	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// TestParamsAndResults pins the conversion of each command's params and
// result, and of each notification, both ways; the 0.6 side must be valid
// 0.6 and the 1.0 side valid 1.0.
func TestParamsAndResults(t *testing.T) {
	v06, v10 := schemacheck.MustLoad(t), schemacheck.MustLoad10(t)
	type methodCase struct {
		convertCase
		method string
		result bool
		def    string // the $def when the method's result has several
	}
	cases := []methodCase{
		{method: "createSession", convertCase: convertCase{name: "working directory into the list",
			in06:   `{"channel":"ahp-root://","provider":"p","workingDirectory":"file:///w"}`,
			want10: `{"channel":"ahp-root://","provider":"p","workingDirectories":["file:///w"]}`}},
		{method: "createChat", convertCase: convertCase{name: "a fork source gets its kind",
			in06:   `{"channel":"ahp-session:/s","chat":"ahp-chat:/c2","source":{"chat":"ahp-chat:/c1","turnId":"t"}}`,
			want10: `{"channel":"ahp-session:/s","chat":"ahp-chat:/c2","source":{"kind":"fork","chat":"ahp-chat:/c1","turnId":"t"}}`}},
		{method: "root/sessionAdded", convertCase: convertCase{name: "summary working directory",
			in06:   `{"channel":"ahp-root://","summary":{"resource":"ahp-session:/s","provider":"p","title":"T","status":1,"createdAt":"a","modifiedAt":"b","workingDirectory":"file:///w"}}`,
			want10: `{"channel":"ahp-root://","summary":{"resource":"ahp-session:/s","provider":"p","title":"T","status":1,"createdAt":"a","modifiedAt":"b","workingDirectories":["file:///w"]}}`}},
		{method: "root/sessionSummaryChanged", convertCase: convertCase{name: "changed working directory",
			in06:   `{"channel":"ahp-root://","session":"ahp-session:/s","changes":{"title":"x","workingDirectory":"file:///v"}}`,
			want10: `{"channel":"ahp-root://","session":"ahp-session:/s","changes":{"title":"x","workingDirectories":["file:///v"]}}`}},
		{method: "auth/required", convertCase: convertCase{name: "string resource stays (1.0 decodes both)",
			in06:   `{"channel":"ahp-root://","resource":"https://r","reason":"expired"}`,
			want10: `{"channel":"ahp-root://","resource":"https://r","reason":"expired"}`}},
		{method: "action", convertCase: convertCase{name: "annotation origin takes the channel's session",
			in06:   `{"channel":"ahp-session:/s1/annotations","serverSeq":4,"action":{"type":"annotations/set","annotation":{"id":"a","turnId":"t","resource":"file:///a","resolved":false,"entries":[]}}}`,
			want10: `{"channel":"ahp-session:/s1/annotations","serverSeq":4,"action":{"type":"annotations/set","annotation":{"id":"a","origin":{"session":"ahp-session:/s1","turnId":"t"},"resource":"file:///a","resolved":false,"entries":[]}}}`}},
		{method: "dispatchAction", convertCase: convertCase{name: "a client toggles a server",
			in06:   `{"channel":"ahp-session:/s","clientSeq":2,"action":{"type":"session/customizationToggled","id":"m","enabled":true}}`,
			want10: `{"channel":"ahp-session:/s","clientSeq":2,"action":{"type":"session/customizationToggled","id":"m","enablement":[{"kind":"session","enabled":true}]}}`}},

		{method: "initialize", result: true, convertCase: convertCase{name: "snapshots by channel",
			in06:   `{"protocolVersion":"0.6.0","serverSeq":3,"snapshots":[{"resource":"ahp-root://","fromSeq":3,"state":{"agents":[],"terminals":[{"resource":"ahp-terminal:/t","title":"sh","claim":{"kind":"client","clientId":"c"},"exitCode":0}]}},{"resource":"ahp-session:/s","fromSeq":3,"state":{"provider":"p","title":"T","status":2,"lifecycle":"creationFailed","creationError":{"errorType":"x","message":"m"},"activeClients":[],"chats":[]}}]}`,
			want10: `{"protocolVersion":"0.6.0","serverSeq":3,"snapshots":[{"resource":"ahp-root://","fromSeq":3,"state":{"agents":[],"terminals":[{"resource":"ahp-terminal:/t","title":"sh","claim":{"kind":"client","clientId":"c"},"lifecycle":{"status":"exited","exitCode":0}}]}},{"resource":"ahp-session:/s","fromSeq":3,"state":{"provider":"p","title":"T","status":2,"lifecycle":"failed","creationError":{"errorType":"x","message":"m"},"activeClients":[],"chats":[]}}]}`}},
		{method: "subscribe", result: true, convertCase: convertCase{name: "a chat whose last turn failed",
			in06:   `{"snapshot":{"resource":"ahp-chat:/c","fromSeq":1,"state":{"resource":"ahp-chat:/c","title":"c","status":2,"modifiedAt":"x","workingDirectory":"file:///w","turns":[{"id":"t","message":{"text":"hi","origin":{"kind":"user"}},"responseParts":[],"state":"error","error":{"errorType":"x","message":"boom"}}]}}}`,
			want10: `{"snapshot":{"resource":"ahp-chat:/c","fromSeq":1,"state":{"resource":"ahp-chat:/c","title":"c","status":2,"modifiedAt":"x","workingDirectories":["file:///w"],"turns":[{"id":"t","message":{"text":"hi","origin":{"kind":"user"}},"responseParts":[{"kind":"error","error":{"errorType":"x","message":"boom"}}],"state":"error"}]}}}`}},
		{method: "reconnect", result: true, def: "ReconnectReplayResult", convertCase: convertCase{name: "a replay's actions",
			in06:   `{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":5,"action":{"type":"chat/error","turnId":"t","duration":2,"error":{"errorType":"x","message":"m"}}},{"channel":"ahp-chat:/c","serverSeq":6,"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}}]}`,
			want10: `{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":5,"action":{"type":"chat/error","turnId":"t","duration":2,"part":{"kind":"error","error":{"errorType":"x","message":"m"}}}},{"channel":"ahp-chat:/c","serverSeq":6,"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}}]}`}},
		{method: "reconnect", result: true, def: "ReconnectSnapshotResult", convertCase: convertCase{name: "snapshots",
			in06:   `{"type":"snapshot","snapshots":[{"resource":"ahp-terminal:/t","fromSeq":9,"state":{"title":"sh","claim":{"kind":"client","clientId":"c"},"content":[]}}]}`,
			want10: `{"type":"snapshot","snapshots":[{"resource":"ahp-terminal:/t","fromSeq":9,"state":{"title":"sh","claim":{"kind":"client","clientId":"c"},"content":[],"lifecycle":{"status":"running"}}}]}`}},
		{method: "listSessions", result: true, convertCase: convertCase{name: "summaries",
			in06:   `{"items":[{"resource":"ahp-session:/s","provider":"p","title":"T","status":1,"createdAt":"a","modifiedAt":"b","workingDirectory":"file:///w"}]}`,
			want10: `{"items":[{"resource":"ahp-session:/s","provider":"p","title":"T","status":1,"createdAt":"a","modifiedAt":"b","workingDirectories":["file:///w"]}]}`}},
	}
	for _, c := range cases {
		t.Run(c.method+": "+c.name, func(t *testing.T) {
			up, down := upParams06, downParams06
			validate06, validate10 := v06.ParamsDef, v10.ParamsDef
			if c.result {
				up, down = upResult06, downResult06
				validate06, validate10 = v06.ResultDef, v10.ResultDef
			}
			c.run(t, func(raw json.RawMessage) (json.RawMessage, error) { return up(c.method, raw) },
				func(raw json.RawMessage) (json.RawMessage, error) { return down(c.method, raw) })
			for _, side := range []struct {
				v   *schemacheck.Validator
				def func(string) (string, bool)
				doc string
			}{{v06, validate06, c.in06}, {v10, validate10, c.want10}} {
				def, ok := side.def(c.method)
				if c.def != "" {
					def, ok = c.def, true
				}
				if !ok {
					t.Fatalf("no schema $def for %s", c.method)
				}
				if err := side.v.Validate(def, json.RawMessage(side.doc)); err != nil {
					t.Errorf("the case itself is not valid: %v\n%s", err, side.doc)
				}
			}
		})
	}
}

// TestDownOnly pins what only the 1.0 side can say: it is dropped, cut
// down to what 0.6 can say, or refused with ErrNotInVersion.
func TestDownOnly(t *testing.T) {
	v06 := schemacheck.MustLoad(t)
	tests := []struct {
		name, method string
		result       bool
		def          string // the 0.6 $def when the method's result has several
		in10, want06 string // want06 "" means ErrNotInVersion
	}{
		{name: "authenticate loses expiresIn", method: "authenticate",
			in10:   `{"channel":"ahp-root://","resource":"https://r","token":"t","expiresIn":3600,"scopes":["a"]}`,
			want06: `{"channel":"ahp-root://","resource":"https://r","token":"t","scopes":["a"]}`},
		{name: "createSession keeps the primary directory", method: "createSession",
			in10:   `{"channel":"ahp-root://","workingDirectories":["file:///a","file:///b"]}`,
			want06: `{"channel":"ahp-root://","workingDirectory":"file:///a"}`},
		{name: "createChat with a side-chat source", method: "createChat",
			in10: `{"channel":"ahp-session:/s","chat":"ahp-chat:/c2","source":{"kind":"sideChat","chat":"ahp-chat:/c1","turnId":"t"}}`},
		{name: "createChat loses its own directories", method: "createChat",
			in10:   `{"channel":"ahp-session:/s","chat":"ahp-chat:/c2","workingDirectories":[]}`,
			want06: `{"channel":"ahp-session:/s","chat":"ahp-chat:/c2"}`},
		{name: "turnResume is 1.0 only", method: "dispatchAction",
			in10: `{"channel":"ahp-chat:/c","clientSeq":1,"action":{"type":"chat/turnResume","turnId":"t"}}`},
		{name: "an error part streamed on its own", method: "action",
			in10: `{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/responsePart","turnId":"t","part":{"kind":"error","error":{"errorType":"x","message":"m"}}}}`},
		{name: "a blocking start is a plain start", method: "action",
			in10:   `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/mcpServerStateChanged","id":"m","state":{"kind":"starting","blocking":true}}}`,
			want06: `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/mcpServerStateChanged","id":"m","state":{"kind":"starting"}}}`},
		{name: "referenced tool input is dropped", method: "action",
			in10:   `{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/toolCallReady","turnId":"t","toolCallId":"tc","invocationMessage":"run","toolInput":{"uri":"ahp-content:/in","contentType":"application/json"}}}`,
			want06: `{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/toolCallReady","turnId":"t","toolCallId":"tc","invocationMessage":"run"}}`},
		{name: "global and workspace decisions give their effective value", method: "action",
			in10:   `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationToggled","id":"m","enablement":[{"kind":"workspace","uri":"file:///w","enabled":false},{"kind":"global","enabled":true}]}}`,
			want06: `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationToggled","id":"m","enabled":false}}`},
		{name: "a client plugin's child decisions land on its children", method: "action",
			in10:   `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationUpdated","customization":{"type":"plugin","id":"p","uri":"u","name":"P","clientId":"c","enablement":[{"kind":"global","enabled":true}],"childEnablement":{"s1":[{"kind":"session","enabled":false}]},"children":[{"type":"skill","id":"s1","uri":"u","name":"S","enabled":true},{"type":"skill","id":"s2","uri":"u","name":"T","enabled":true}]}}}`,
			want06: `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationUpdated","customization":{"type":"plugin","id":"p","uri":"u","name":"P","clientId":"c","enabled":true,"children":[{"type":"skill","id":"s1","uri":"u","name":"S","enabled":false},{"type":"skill","id":"s2","uri":"u","name":"T","enabled":true}]}}}`},
		{name: "no decisions is enabled", method: "action",
			in10:   `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationUpdated","customization":{"type":"mcpServer","id":"m","uri":"u","name":"M","state":{"kind":"ready"}}}}`,
			want06: `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/customizationUpdated","customization":{"type":"mcpServer","id":"m","uri":"u","name":"M","state":{"kind":"ready"},"enabled":true}}}`},
		{name: "recomputing is computing", method: "action",
			in10:   `{"channel":"ahp-changeset:/x","serverSeq":1,"action":{"type":"changeset/statusChanged","status":"recomputing"}}`,
			want06: `{"channel":"ahp-changeset:/x","serverSeq":1,"action":{"type":"changeset/statusChanged","status":"computing"}}`},
		{name: "a recomputing changeset snapshot", method: "subscribe", result: true,
			in10:   `{"snapshot":{"resource":"ahp-changeset:/x","fromSeq":1,"state":{"status":"recomputing","files":[]}}}`,
			want06: `{"snapshot":{"resource":"ahp-changeset:/x","fromSeq":1,"state":{"status":"computing","files":[]}}}`},
		{name: "clearing an activity stays a clear", method: "action",
			in10:   `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/activityChanged"}}`,
			want06: `{"channel":"ahp-session:/s","serverSeq":1,"action":{"type":"session/activityChanged"}}`},
		{name: "auth/required names the resource by its identifier", method: "auth/required",
			in10:   `{"channel":"ahp-root://","resource":{"resource":"https://r","authorization_servers":["https://as"]},"reason":"required"}`,
			want06: `{"channel":"ahp-root://","resource":"https://r","reason":"required"}`},
		{name: "a tool call delta without content", method: "action",
			in10:   `{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/toolCallDelta","turnId":"t","toolCallId":"tc"}}`,
			want06: `{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/toolCallDelta","turnId":"t","toolCallId":"tc","content":""}}`},
		{name: "a replay leaves out 1.0-only actions", method: "reconnect", result: true, def: "ReconnectReplayResult",
			in10:   `{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":5,"action":{"type":"chat/turnResume","turnId":"t"}},{"channel":"ahp-chat:/c","serverSeq":6,"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}}]}`,
			want06: `{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":6,"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}}]}`},
		{name: "a resumed turn's error part is not shown to 0.6", method: "subscribe", result: true,
			in10:   `{"snapshot":{"resource":"ahp-chat:/c","fromSeq":1,"state":{"resource":"ahp-chat:/c","title":"c","status":8,"modifiedAt":"x","turns":[],"activeTurn":{"id":"t","startedAt":"s","message":{"text":"hi","origin":{"kind":"user"}},"responseParts":[{"kind":"error","error":{"errorType":"x","message":"m"},"resumable":true},{"kind":"markdown","id":"p","content":"again"}]}}}}`,
			want06: `{"snapshot":{"resource":"ahp-chat:/c","fromSeq":1,"state":{"resource":"ahp-chat:/c","title":"c","status":8,"modifiedAt":"x","turns":[],"activeTurn":{"id":"t","startedAt":"s","message":{"text":"hi","origin":{"kind":"user"}},"responseParts":[{"kind":"markdown","id":"p","content":"again"}]}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			down := downParams06
			if tt.result {
				down = downResult06
			}
			got, err := down(tt.method, json.RawMessage(tt.in10))
			if tt.want06 == "" {
				if !errors.Is(err, ErrNotInVersion) {
					t.Fatalf("got %s, %v; want ErrNotInVersion", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := wiretest.JSONDiff([]byte(tt.want06), got); d != "" {
				t.Errorf("down:\n%s\n got %s", d, got)
			}
			def, ok := v06.ParamsDef(tt.method)
			if tt.result {
				def, ok = v06.ResultDef(tt.method)
			}
			if tt.def != "" {
				def, ok = tt.def, true
			}
			if !ok {
				t.Fatalf("no 0.6 $def for %s", tt.method)
			}
			if err := v06.Validate(def, got); err != nil {
				t.Errorf("what goes to a 0.6 peer is not valid 0.6: %v", err)
			}
		})
	}
}
