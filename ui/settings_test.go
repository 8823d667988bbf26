package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// newSessionSettings opens the new-session dialog, picks the first agent
// and waits for the settings the host resolved.
func newSessionSettings(d *driver) {
	d.t.Helper()
	d.until("session list", func() bool { return len(d.m.sessions.list) > 0 })
	d.m.focus = focusSessions
	d.keys("n", "enter")
	d.until("the session's settings", func() bool {
		return d.m.sessions.cfgStep != nil && !d.m.sessions.cfgStep.loading
	})
}

func rawJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// TestNewSessionDialogShowsSettings: the dialog shows the schema's enums
// by their labels with the defaults chosen, and a readOnly property is
// shown but does not change (issue 26).
func TestNewSessionDialogShowsSettings(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	screen := d.m.Render()
	for _, want := range []string{"Approvals: ‹ Manual permissions ›", "Ask before every tool call that changes something",
		"Isolation: ‹ Folder ›", "Branch: main (set by the host)",
		"choices: Manual permissions · Assisted permissions", "Allow all"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, screen)
		}
	}
	// Branch (sorted after the approvals and the base branch) is readOnly.
	d.keys("down", "down")
	d.keys("right")
	if got := d.m.sessions.cfgStep.values[demohost.ConfigBranch]; string(got) != `"main"` {
		t.Fatalf("a readOnly setting changed to %s", got)
	}
	d.until("the status says it is fixed", func() bool { return strings.Contains(d.m.status.text, "cannot be changed") })
	d.keys("esc")
	if d.m.modal != modalNone || d.m.sessions.cfgStep != nil {
		t.Fatal("esc did not close the dialog")
	}
}

// TestAllowAllRunsWithoutAsking: "Allow all" chosen in the dialog goes
// in createSession's config, and the demo's write call then runs
// without a confirmation (issue 26).
func TestAllowAllRunsWithoutAsking(t *testing.T) {
	d := newDriver(t, nil)
	newSessionSettings(d)
	// Each broader mode asks first (security finding 6).
	d.keys("l")
	confirmWiden(d)
	d.keys("l")
	confirmWiden(d)
	if !strings.Contains(d.m.Render(), "Approvals: ‹ Allow all ›") {
		t.Fatalf("two confirmed steps right is not Allow all:\n%s", d.m.Render())
	}
	d.keys("enter")
	d.until("the new session open", func() bool {
		return d.m.hasSess && d.m.openSession != demohost.DemoSessionURI && d.m.openSession != demohost.HistorySessionURI &&
			d.m.sess.Config != nil && d.m.hasChat
	})
	if got := d.m.sess.Config.Values[demohost.ConfigApprovals]; string(got) != `"`+demohost.ApprovalsAllowAll+`"` {
		t.Fatalf("the session was created with approvals %s, want Allow all", got)
	}
	d.rec.take()
	d.sendMessage("write the changelog")
	defer func() {
		if t.Failed() {
			b, _ := json.MarshalIndent(d.m.chat, "", " ")
			t.Logf("chat: %s", b)
		}
	}()
	asked := false
	d.until("the write completed", func() bool {
		if d.m.chatPanel.waitingHere() > 0 {
			asked = true
		}
		_, done := d.itemWhere(func(it chatItem) bool {
			return it.Kind == itemToolCall && strings.HasSuffix(it.ID, "-tc-write") && it.Tool.Status() == protocol.ToolCallStatusCompleted
		})
		return done
	})
	if asked {
		t.Fatal("the write asked for a confirmation in an Allow all session")
	}
	for _, s := range d.rec.take() {
		if s.Action.Kind() == "chat/toolCallConfirmed" {
			t.Fatalf("the client confirmed a tool call: %v", s.Action.Kind())
		}
	}
}

// TestSettingsSheetChangesMutable: O shows the open session's settings
// and the host's; ←/→ on a sessionMutable one sends session/configChanged,
// on the host's root/configChanged; a setting fixed at creation or by the
// host sends nothing (issue 26).
func TestSettingsSheetChangesMutable(t *testing.T) {
	d := newDriver(t, nil)
	d.openDemo()
	d.until("the session's settings", func() bool { return d.m.sess.Config != nil && d.m.root.Config != nil })
	d.keys("O")
	if !d.m.settings.open {
		t.Fatal("O did not open the settings sheet")
	}
	screen := d.m.Render()
	for _, want := range []string{"This session", "Approvals: ‹ Manual permissions ›", "Branch: main (set by the host)",
		"Isolation: Folder (set when the session is created)", "Base branch: main (set when the session is created)",
		"Max tool calls: 20", "The host", "Proxy: (none)", "Strict proxy TLS: ‹ true ›"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the sheet does not show %q:\n%s", want, screen)
		}
	}
	d.keys("right")
	d.expectSent() // a broader approval mode asks first
	confirmWiden(d)
	sent := d.expectSent("session/configChanged")
	a := sent[0].Action.Variant.(protocol.SessionConfigChangedAction)
	if sent[0].Channel != demohost.DemoSessionURI || string(a.Config[demohost.ConfigApprovals]) != `"assisted"` || len(a.Config) != 1 {
		t.Fatalf("sent %s %+v, want the approvals set to assisted", sent[0].Channel, a)
	}
	d.untilConfirmed(sent[0].ClientSeq, func() bool { return true })
	if got := d.m.sess.Config.Values[demohost.ConfigApprovals]; string(got) != `"assisted"` {
		t.Fatalf("the host kept approvals %s", got)
	}
	// Base branch and Isolation (not sessionMutable) and Branch
	// (readOnly) send nothing, by ←/→ or e.
	d.keys("down", "right", "e", "down", "left", "e", "down", "right", "e")
	d.expectSent()
	if d.m.modal != modalNone {
		t.Fatalf("e opened a form (modal %v) on a setting that cannot change", d.m.modal)
	}
	// Max tool calls and the host's proxy are edited in the form, not by
	// →; the strict-TLS switch changes. Global auto-approve, between
	// them, only asks (esc keeps it).
	d.keys("down", "right", "down", "right", "esc", "down", "right")
	d.expectSent()
	d.keys("down", "right") // → stops at true, the last value
	d.expectSent()
	d.keys("left")
	d.expectSent() // a host setting asks first
	confirmWiden(d)
	sent = d.expectSent("root/configChanged")
	r := sent[0].Action.Variant.(protocol.RootConfigChangedAction)
	if sent[0].Channel != protocol.RootChannel || string(r.Config[demohost.RootConfigStrictSSL]) != "false" {
		t.Fatalf("sent %s %+v, want strict TLS off on the root", sent[0].Channel, r)
	}
	d.untilConfirmed(sent[0].ClientSeq, func() bool { return true })
	if got := d.m.root.Config.Values[demohost.RootConfigStrictSSL]; string(got) != "false" {
		t.Fatalf("the host kept strict TLS %s", got)
	}
	d.keys("esc")
	if d.m.settings.open {
		t.Fatal("esc did not close the sheet")
	}
}
