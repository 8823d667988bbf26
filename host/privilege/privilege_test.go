package privilege

import (
	"encoding/json"
	"testing"

	"github.com/ahptui/ahptui/protocol"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// approvals is VS Code's approval mode, listed from the narrowest.
var approvals = Setting{ID: "autoApprove", Title: "Approvals", Type: "string", Default: raw(`"default"`),
	Enum:   []json.RawMessage{raw(`"default"`), raw(`"assisted"`), raw(`"autoApprove"`)},
	Labels: []string{"Manual permissions", "Assisted permissions", "Allow all"},
	Descs:  []string{"Asks when approval settings don't apply", "Evaluates risk before running tools", "Runs tool calls without asking"}}

func TestWidens(t *testing.T) {
	auto := Setting{ID: "globalAutoApproveEnabled", Title: "Global Auto Approve", Type: "boolean", Default: raw("false")}
	strict := Setting{ID: "strictSSL", Title: "Strict proxy TLS", Type: "boolean", Default: raw("true")}
	proxy := Setting{ID: "proxy", Title: "Proxy", Type: "string", Default: raw(`""`)}
	sandbox := Setting{ID: "sandbox", Title: "Sandbox", Type: "string", Enum: []json.RawMessage{raw(`"on"`), raw(`"off"`)}, Default: raw(`"on"`)}
	for _, tc := range []struct {
		name   string
		s      Setting
		old, v string
		want   bool
	}{
		{"allow all", approvals, `"default"`, `"autoApprove"`, true},
		{"assisted past the default", approvals, `"default"`, `"assisted"`, true},
		{"back to manual", approvals, `"autoApprove"`, `"default"`, false},
		{"unchanged", approvals, `"autoApprove"`, `"autoApprove"`, false},
		{"an unknown mode", approvals, `"default"`, `"whatever"`, true},
		{"auto-approve on", auto, "false", "true", true},
		{"auto-approve off", auto, "true", "false", false},
		{"a proxy is no privilege", proxy, `""`, `"http://p"`, false},
		{"TLS checks are no approval", strict, "true", "false", false},
		{"sandbox off", sandbox, `"on"`, `"off"`, true},
	} {
		if got := Widens(tc.s, raw(tc.old), raw(tc.v)); got != tc.want {
			t.Errorf("%s: Widens(%s → %s) = %v, want %v", tc.name, tc.old, tc.v, got, tc.want)
		}
	}
}

// TestOnceOption: VS Code lists "Allow in this Session" first; the once
// option is the one that allows only this call, and the session one is
// wider.
func TestOnceOption(t *testing.T) {
	opts := []protocol.ConfirmationOption{
		{ID: "allow-session", Label: "Allow in this Session", Kind: protocol.ConfirmationOptionKindApprove},
		{ID: "allow-once", Label: "Allow once", Kind: protocol.ConfirmationOptionKindApprove},
		{ID: "skip", Label: "Skip", Kind: protocol.ConfirmationOptionKindDeny},
	}
	o, ok := OnceOption(opts)
	if !ok || o.ID != "allow-once" {
		t.Fatalf("OnceOption = %+v, %v; want allow-once", o, ok)
	}
	if !WiderOption(opts[0], opts) || WiderOption(opts[1], opts) || WiderOption(opts[2], opts) {
		t.Error("only the session option is wider than this call")
	}
	if _, ok := OnceOption(opts[:1]); ok {
		t.Error("a session-wide option alone was taken for a once option")
	}
	plain := []protocol.ConfirmationOption{{ID: "yes", Label: "Allow", Kind: protocol.ConfirmationOptionKindApprove}}
	if o, ok := OnceOption(plain); !ok || o.ID != "yes" {
		t.Errorf("a plain Allow is not the once option: %+v %v", o, ok)
	}
}
