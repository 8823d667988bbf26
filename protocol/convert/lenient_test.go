package convert

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// TestLenient10: the early-1.0 spellings of a turn's error become error
// parts in snapshots, replays and live actions; the 1.0 spellings, and
// frames with neither, come back as they were (the same slice, for the
// streaming path without an allocation).
func TestLenient10(t *testing.T) {
	const info = `{"errorType":"auth","message":"Session was not created with authentication info"}`
	const part = `{"kind":"error","error":` + info + `}`
	tests := []struct {
		name, method, in, want string
		result                 bool
	}{
		{"subscribe: a chat turn with error", "subscribe",
			`{"snapshot":{"resource":"ahp-chat:/c","fromSeq":3,"state":{"resource":"ahp-chat:/c","title":"T","status":2,"modifiedAt":"x","turns":[{"id":"t1","message":{"text":"hi"},"responseParts":[{"kind":"markdown","id":"p","content":"so far"}],"state":"error","error":` + info + `}]}}}`,
			`{"snapshot":{"resource":"ahp-chat:/c","fromSeq":3,"state":{"resource":"ahp-chat:/c","title":"T","status":2,"modifiedAt":"x","turns":[{"id":"t1","message":{"text":"hi"},"responseParts":[{"kind":"markdown","id":"p","content":"so far"},` + part + `],"state":"error"}]}}}`, true},
		{"reconnect: a replayed chat/error with error", "reconnect",
			`{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/error","turnId":"t1","duration":3,"error":` + info + `}}]}`,
			`{"type":"replay","missing":[],"actions":[{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/error","turnId":"t1","duration":3,"part":` + part + `}}]}`, true},
		{"a session snapshot is not a chat", "subscribe",
			`{"snapshot":{"resource":"ahp-session:/s","fromSeq":3,"state":{"turns":[{"id":"t","error":` + info + `}]}}}`, "", true},
		{"action: chat/error with error", "action",
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/error","turnId":"t1","duration":3,"error":` + info + `}}`,
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/error","turnId":"t1","duration":3,"part":` + part + `}}`, false},
		{"action: 1.0 chat/error keeps its part", "action",
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/error","turnId":"t1","duration":3,"part":` + part + `,"error":{"message":"stray"}}}`, "", false},
		{"action: a turn with an error part drops the stray error", "action",
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"x"},"responseParts":[` + part + `],"state":"error","error":{"message":"stray"}}]}}`,
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"x"},"responseParts":[` + part + `],"state":"error"}]}}`, false},
		{"action: an error that is not an ErrorInfo is dropped, not shown", "action",
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"x"},"responseParts":[],"state":"error","error":"boom"}]}}`,
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"x"},"responseParts":[],"state":"error"}]}}`, false},
		{"action: other types with an error key pass", "action",
			`{"channel":"ahp-chat:/c","serverSeq":4,"action":{"type":"chat/toolCallComplete","turnId":"t","toolCallId":"c","result":{"success":false,"pastTenseMessage":"x","error":{"message":"m"}}}}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := json.RawMessage(tt.in)
			var got json.RawMessage
			var err error
			if tt.result {
				got, err = Lenient10Result(tt.method, in)
			} else {
				got, err = Lenient10Params(tt.method, in)
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if !same(got, in) {
					t.Errorf("changed to %s", got)
				}
				return
			}
			if d := wiretest.JSONDiff([]byte(tt.want), got); d != "" {
				t.Errorf("got %s\n%s", got, d)
			}
		})
	}
	for _, hp := range hotPath {
		env := hotEnvelope(hp.action)
		if n := testing.AllocsPerRun(100, func() { _, _ = Lenient10Params("action", env) }); n != 0 {
			t.Errorf("Lenient10Params(%s) allocates %.0f times", hp.name, n)
		}
	}
}
