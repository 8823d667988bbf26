package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// fixtureClock is the clock the conformance fixtures were made with: 9999 ms
// after the epoch (chat modifiedAt "1970-01-01T00:00:09.999Z").
func fixtureClock() time.Time { return time.UnixMilli(9999).UTC() }

// reducerKinds lists the fixture `reducer` names in a fixed order (the fuzz
// target indexes into it).
var reducerKinds = []string{"root", "session", "chat", "terminal", "changeset", "annotations", "resourceWatch"}

// decodeReducerState decodes raw as the state type of reducer kind.
func decodeReducerState(kind string, raw []byte) (SnapshotStateVariant, error) {
	switch kind {
	case "root":
		return decodeAs[RootState](raw)
	case "session":
		return decodeAs[SessionState](raw)
	case "chat":
		return decodeAs[ChatState](raw)
	case "terminal":
		return decodeAs[TerminalState](raw)
	case "changeset":
		return decodeAs[ChangesetState](raw)
	case "annotations":
		return decodeAs[AnnotationsState](raw)
	case "resourceWatch":
		return decodeAs[ResourceWatchState](raw)
	}
	return nil, fmt.Errorf("unknown reducer kind %q", kind)
}

// reducerFixture is one conformance fixture (wiretest reads and judges
// them for this package and for the 0.6 run in protocol/convert06).
type reducerFixture = wiretest.ReducerFixture

// parsedReducerFixtures returns the fixtures that parsed; seed corpora use
// it.
func parsedReducerFixtures(t testing.TB) []reducerFixture {
	return wiretest.ParsedReducerFixtures(t, fixtureDir(t, "reducers"))
}

// The 0.6 conformance run (TestReducerFixtures06) and the hand-written
// 0.6 cases moved to protocol/convert06: 0.6 traffic reaches these
// reducers only through the conversion, so that is what they judge.

// withSpareCapacity returns s in a backing array with room to grow, the
// case where an append-in-place reducer would let two branches overwrite
// each other's tail.
func withSpareCapacity[T any](s []T) []T {
	out := make([]T, len(s), len(s)+8)
	copy(out, s)
	return out
}

// TestReducersBranchFromSharedBase applies two different appending actions
// to the same base state, as write-ahead reconciliation does when it
// replays pending actions over a snapshot the UI still shows. The second
// branch must not disturb the first result, even when the base slices have
// spare capacity.
func TestReducersBranchFromSharedBase(t *testing.T) {
	mustAction := func(raw string) StateAction {
		t.Helper()
		var a StateAction
		if err := json.Unmarshal([]byte(raw), &a); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		return a
	}
	session := SessionState{Provider: "p", Title: "T", Lifecycle: SessionLifecycleReady,
		ActiveClients: withSpareCapacity([]SessionActiveClient{{ClientID: "a", Tools: []ToolDefinition{}}}),
		Chats:         withSpareCapacity([]ChatSummary{{Resource: "c:/1", ModifiedAt: "x"}}),
		InputNeeded:   withSpareCapacity([]SessionInputRequest{}),
	}
	terminal := TerminalState{Title: "sh", Claim: TerminalClaim{Variant: TerminalClientClaim{Kind: "client", ClientID: "c"}},
		Content: withSpareCapacity([]TerminalContentPart{{Variant: TerminalCommandPart{Type: "command", CommandID: "1", IsComplete: true}}}),
	}
	changeset := ChangesetState{Status: ChangesetStatusReady, Files: withSpareCapacity([]ChangesetFile{{ID: "a"}})}
	annotations := AnnotationsState{Annotations: withSpareCapacity([]Annotation{{ID: "a", Entries: withSpareCapacity([]AnnotationEntry{{ID: "e"}})}})}
	root := RootState{Agents: withSpareCapacity([]AgentInfo{}), Config: &RootConfigState{Values: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}}}

	cases := []struct {
		name   string
		base   SnapshotStateVariant
		a1, a2 string
	}{
		{"chatAdded", session, `{"type":"session/chatAdded","summary":{"resource":"c:/2","title":"one","status":1,"modifiedAt":"y"}}`,
			`{"type":"session/chatAdded","summary":{"resource":"c:/3","title":"two","status":1,"modifiedAt":"y"}}`},
		{"activeClientSet", session, `{"type":"session/activeClientSet","activeClient":{"clientId":"b","tools":[]}}`,
			`{"type":"session/activeClientSet","activeClient":{"clientId":"c","tools":[]}}`},
		{"inputNeededSet", session, `{"type":"session/inputNeededSet","request":{"kind":"chatInput","id":"1","chat":"c:/1","request":{"id":"q","message":"one"}}}`,
			`{"type":"session/inputNeededSet","request":{"kind":"chatInput","id":"2","chat":"c:/1","request":{"id":"q","message":"two"}}}`},
		{"terminal data", terminal, `{"type":"terminal/data","data":"one"}`, `{"type":"terminal/data","data":"two"}`},
		{"commandExecuted", terminal, `{"type":"terminal/commandExecuted","commandId":"2","commandLine":"one","timestamp":1}`,
			`{"type":"terminal/commandExecuted","commandId":"3","commandLine":"two","timestamp":2}`},
		{"fileSet", changeset, `{"type":"changeset/fileSet","file":{"id":"b","edit":{}}}`, `{"type":"changeset/fileSet","file":{"id":"c","edit":{}}}`},
		{"annotations set", annotations, `{"type":"annotations/set","annotation":{"id":"b","turnId":"t","resource":"r","resolved":false,"entries":[]}}`,
			`{"type":"annotations/set","annotation":{"id":"c","turnId":"t","resource":"r","resolved":false,"entries":[]}}`},
		{"entrySet", annotations, `{"type":"annotations/entrySet","annotationId":"a","entry":{"id":"e1","text":"one"}}`,
			`{"type":"annotations/entrySet","annotationId":"a","entry":{"id":"e2","text":"two"}}`},
		{"root configChanged", root, `{"type":"root/configChanged","config":{"k":"one"}}`, `{"type":"root/configChanged","config":{"k":"two"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := Reduce(c.base, mustAction(c.a1), Rules{})
			want, _ := json.Marshal(first)
			second := Reduce(c.base, mustAction(c.a2), Rules{})
			got, _ := json.Marshal(first)
			if !bytes.Equal(want, got) {
				t.Errorf("reducing the shared base with %s changed the earlier result:\n%s", c.a2, wiretest.JSONDiff(want, got))
			}
			if s2, _ := json.Marshal(second); bytes.Equal(s2, want) {
				t.Errorf("the two branches should differ; both are %s", s2)
			}
		})
	}
}
