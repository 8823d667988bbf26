package convert

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/ahptui/ahptui/protocol/internal/wiretest"
)

// convertCase is one conversion pinned both ways: up turns in06 into
// want10, down turns want10 back into in06 (unless oneWay).
type convertCase struct {
	name, what, in06, want10 string
	oneWay                   bool
}

func (c convertCase) run(t *testing.T, up, down func(json.RawMessage) (json.RawMessage, error)) {
	t.Helper()
	got, err := up(json.RawMessage(c.in06))
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if d := wiretest.JSONDiff([]byte(c.want10), got); d != "" {
		t.Errorf("up %s:\n%s\n got %s", c.in06, d, got)
	}
	if c.oneWay {
		return
	}
	back, err := down(got)
	if err != nil {
		t.Fatalf("down: %v", err)
	}
	if d := wiretest.JSONDiff([]byte(c.in06), back); d != "" {
		t.Errorf("down %s:\n%s\n got %s", got, d, back)
	}
}

func TestActionConversions(t *testing.T) {
	cases := []convertCase{
		{name: "customizationToggled takes a session decision",
			in06:   `{"type":"session/customizationToggled","id":"m1","enabled":false}`,
			want10: `{"type":"session/customizationToggled","id":"m1","enablement":[{"kind":"session","enabled":false}]}`},
		{name: "chat/error carries an error part",
			in06:   `{"type":"chat/error","turnId":"t","duration":3,"error":{"errorType":"x","message":"m"}}`,
			want10: `{"type":"chat/error","turnId":"t","duration":3,"part":{"kind":"error","error":{"errorType":"x","message":"m"}}}`},
		{name: "chatUpdated working directory becomes a list",
			in06:   `{"type":"session/chatUpdated","chat":"c","changes":{"title":"x","workingDirectory":"file:///w"}}`,
			want10: `{"type":"session/chatUpdated","chat":"c","changes":{"title":"x","workingDirectories":["file:///w"]}}`},
		{name: "terminalsChanged exit codes become lifecycles",
			in06:   `{"type":"root/terminalsChanged","terminals":[{"resource":"t:1","title":"a","claim":{"kind":"client","clientId":"c"},"exitCode":2},{"resource":"t:2","title":"b","claim":{"kind":"client","clientId":"c"}}]}`,
			want10: `{"type":"root/terminalsChanged","terminals":[{"resource":"t:1","title":"a","claim":{"kind":"client","clientId":"c"},"lifecycle":{"status":"exited","exitCode":2}},{"resource":"t:2","title":"b","claim":{"kind":"client","clientId":"c"},"lifecycle":{"status":"running"}}]}`},
		{name: "customizationsChanged: servers and plugins take decisions, directories and skills keep enabled",
			in06:   `{"type":"session/customizationsChanged","customizations":[{"type":"mcpServer","id":"m","uri":"u","name":"M","enabled":true,"state":{"kind":"ready"}},{"type":"plugin","id":"p","uri":"u","name":"P","enabled":false,"children":[{"type":"skill","id":"s","uri":"u","name":"S","enabled":true},{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enabled":false,"state":{"kind":"stopped"}}]},{"type":"directory","id":"d","uri":"u","name":"D","enabled":true,"contents":"skill","writable":false}]}`,
			want10: `{"type":"session/customizationsChanged","customizations":[{"type":"mcpServer","id":"m","uri":"u","name":"M","enablement":[{"kind":"session","enabled":true}],"state":{"kind":"ready"}},{"type":"plugin","id":"p","uri":"u","name":"P","enablement":[{"kind":"session","enabled":false}],"children":[{"type":"skill","id":"s","uri":"u","name":"S","enabled":true},{"type":"mcpServer","id":"m2","uri":"u","name":"M2","enablement":[{"kind":"session","enabled":false}],"state":{"kind":"stopped"}}]},{"type":"directory","id":"d","uri":"u","name":"D","enabled":true,"contents":"skill","writable":false}]}`},
		{name: "annotations/updated turn becomes an origin without a session",
			in06:   `{"type":"annotations/updated","annotationId":"a","turnId":"t1"}`,
			want10: `{"type":"annotations/updated","annotationId":"a","origin":{"session":"","turnId":"t1"}}`},
		{name: "turnsLoaded turn errors become parts",
			in06:   `{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"hi"},"responseParts":[{"kind":"markdown","id":"p","content":"a"}],"state":"error","error":{"errorType":"x","message":"m"}}]}`,
			want10: `{"type":"chat/turnsLoaded","turns":[{"id":"t","message":{"text":"hi"},"responseParts":[{"kind":"markdown","id":"p","content":"a"},{"kind":"error","error":{"errorType":"x","message":"m"}}],"state":"error"}]}`},
		{name: "delta passes untouched",
			in06:   `{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}`,
			want10: `{"type":"chat/delta","turnId":"t","partId":"p","content":"x"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, upAction06, downAction06) })
	}
}

func TestDownActionRefusesNewActions(t *testing.T) {
	for _, a := range []string{
		`{"type":"chat/turnResume","turnId":"t"}`,
		`{"type":"session/mcpServerBackgroundRequested","id":"m"}`,
	} {
		if _, err := downAction06(json.RawMessage(a)); !errors.Is(err, ErrNotInVersion) {
			t.Errorf("downAction06(%s) = %v, want ErrNotInVersion", a, err)
		}
	}
	if _, err := downParams06("action", json.RawMessage(`{"channel":"ahp-chat:/c","serverSeq":1,"action":{"type":"chat/turnResume","turnId":"t"}}`)); !errors.Is(err, ErrNotInVersion) {
		t.Errorf("downParams06(action turnResume) = %v, want ErrNotInVersion", err)
	}
}

// TestUnchangedIsSameSlice: input that needs no change comes back as the
// very same bytes.
func TestUnchangedIsSameSlice(t *testing.T) {
	in := json.RawMessage(`{"channel":"ahp-chat:/c","serverSeq":9,"action":{"type":"chat/delta","turnId":"t","partId":"p","content":"hello"}}`)
	out, err := upParams06("action", in)
	if err != nil || !same(in, out) {
		t.Fatalf("upParams06(delta) = %s, %v; want the input slice", out, err)
	}
	st := json.RawMessage(`{"agents":[]}`)
	if out, err := upState06("ahp-root://", st); err != nil || !same(st, out) {
		t.Fatalf("upState06(root without terminals) = %s, %v", out, err)
	}
}
