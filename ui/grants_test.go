package ui

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/host/privilege"
	"github.com/ahptui/ahptui/protocol"
)

// vscodePermissionsSchema is VS Code's per-session permissions setting
// as its host sends it: an object of two lists of tool names, filled by
// "Allow in this Session" answers.
func vscodePermissionsSchema() protocol.SessionConfigSchema {
	yes := true
	desc := `Per-tool session permissions. Updated automatically when approving a tool "in this Session".`
	return protocol.SessionConfigSchema{Type: "object", Properties: map[string]protocol.SessionConfigPropertySchema{
		"permissions": {Type: "object", Title: "Permissions", Description: &desc, SessionMutable: &yes,
			Default: json.RawMessage(`{"allow":[],"deny":[]}`),
			Properties: map[string]protocol.ConfigPropertySchema{
				"allow": {Type: "array", Title: "Allowed tools", Items: &protocol.ConfigPropertySchema{Type: "string", Title: "Tool name"}},
				"deny":  {Type: "array", Title: "Denied tools", Items: &protocol.ConfigPropertySchema{Type: "string", Title: "Tool name"}},
			}},
	}}
}

// TestSessionGrantsListedAndRevoked (issue 36 item 6): the settings
// sheet says the session's grants in words, not raw JSON; e lists each,
// and taking one out sends the lists without it, with no privilege
// confirmation (a revoke lets nothing more run).
func TestSessionGrantsListedAndRevoked(t *testing.T) {
	m := fxModel(fxChatState())
	stub := m.client.(*stubClient)
	stub.accept = true
	m.sess.Config = &protocol.SessionConfigState{Schema: vscodePermissionsSchema(),
		Values: map[string]json.RawMessage{"permissions": json.RawMessage(`{"allow":["bash","write_file"],"deny":[]}`)}}
	m.Update(press("O"))
	screen := ansi.Strip(m.Render())
	if !strings.Contains(screen, "Allowed tools: bash, write_file; Denied tools: none") || strings.Contains(screen, `{"allow"`) {
		t.Fatalf("the grants are not in words:\n%s", screen)
	}
	m.Update(press("e"))
	if m.modal != modalInput || m.form == nil {
		t.Fatalf("e did not open the grants form (modal %v)", m.modal)
	}
	if s := ansi.Strip(m.Render()); !strings.Contains(s, "[x] bash") || !strings.Contains(s, "[x] write_file") {
		t.Fatalf("the form does not list the grants:\n%s", s)
	}
	m.Update(press("space")) // takes bash out
	_, cmd := m.Update(press("ctrl+s"))
	if m.modal == modalWiden {
		t.Fatal("revoking a grant asked for a privilege confirmation")
	}
	pump(t, m, cmd, "the change is sent", func() bool { return len(stub.sent) > 0 })
	a, ok := stub.sent[len(stub.sent)-1].Variant.(protocol.SessionConfigChangedAction)
	if !ok {
		t.Fatalf("sent %T", stub.sent[len(stub.sent)-1].Variant)
	}
	var got map[string][]string
	if err := json.Unmarshal(a.Config["permissions"], &got); err != nil {
		t.Fatal(err)
	}
	if len(got["allow"]) != 1 || got["allow"][0] != "write_file" || len(got["deny"]) != 0 {
		t.Fatalf("sent permissions %s, want allow [write_file]", a.Config["permissions"])
	}
}

// TestOnlyRemoves: a grant added is never taken for a revoke.
func TestOnlyRemoves(t *testing.T) {
	p := sessionProps(vscodePermissionsSchema())[0]
	for _, tc := range []struct {
		old, v string
		want   bool
	}{
		{`{"allow":["a","b"],"deny":[]}`, `{"allow":["a"],"deny":[]}`, true},
		{`{"allow":["a"],"deny":["x"]}`, `{"allow":["a"],"deny":[]}`, true},
		{`{"allow":["a"],"deny":[]}`, `{"allow":["a","b"],"deny":[]}`, false},
		{`{"allow":["a"]}`, `{"allow":["a"],"other":["z"]}`, false},
		{`{"allow":["a"]}`, `"all"`, false},
	} {
		if got := privilege.OnlyRemoves(p.setting(), json.RawMessage(tc.old), json.RawMessage(tc.v)); got != tc.want {
			t.Errorf("onlyRemoves(%s, %s) = %v, want %v", tc.old, tc.v, got, tc.want)
		}
	}
}

// TestHeaderNamesGrants: a Manual session with a tool granted is not
// marked as an Allow-all one; the grant is named, a deny list is not.
func TestHeaderNamesGrants(t *testing.T) {
	m := fxModel(fxChatState())
	schema := vscodePermissionsSchema()
	maps.Copy(schema.Properties, vscodeApprovalsSchema().Properties)
	m.sess.Config = &protocol.SessionConfigState{Schema: schema, Values: map[string]json.RawMessage{
		"autoApprove": json.RawMessage(`"default"`), "permissions": json.RawMessage(`{"allow":["bash"],"deny":["rm"]}`)}}
	h := ansi.Strip(m.chatPanel.chatHeader(120))
	if strings.Contains(h, "⚠ Manual") || !strings.Contains(h, "Manual permissions") || !strings.Contains(h, "⚠ Allowed tools: bash") || strings.Contains(h, "Denied") {
		t.Fatalf("header %q", h)
	}
	m.sess.Config.Values["permissions"] = json.RawMessage(`{"allow":[],"deny":["rm"]}`)
	if h := ansi.Strip(m.chatPanel.chatHeader(120)); strings.Contains(h, "⚠") {
		t.Fatalf("a deny list is shown as a grant: %q", h)
	}
}
