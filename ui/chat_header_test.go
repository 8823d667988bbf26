package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ahptui/ahptui/demohost"
	"github.com/ahptui/ahptui/protocol"
)

// TestChatHeaderShowsSettings: the chat header names the session's
// approval mode, the model and the working folder; an Allow-all session
// is marked as one (⚠), a Manual one is not, and on a narrow panel the
// approval mode is the last setting to go.
func TestChatHeaderShowsSettings(t *testing.T) {
	m := fxModel(fxChatState())
	m.sess.WorkingDirectories = []protocol.URI{"file:///srv/app"}
	m.sess.Config = &protocol.SessionConfigState{Schema: vscodeApprovalsSchema(),
		Values: map[string]json.RawMessage{demohost.ConfigApprovals: json.RawMessage(`"default"`)}}
	m.models[hostSession{m.cfg.Host, m.openSession}] = &protocol.ModelSelection{ID: "m1"}

	h := ansi.Strip(m.chatPanel.chatHeader(120))
	for _, want := range []string{"Manual permissions", "Demo model", "/srv/app"} {
		if !strings.Contains(h, want) {
			t.Errorf("header %q lacks %q", h, want)
		}
	}
	if strings.Contains(h, "⚠") {
		t.Errorf("a Manual session's header warns: %q", h)
	}

	m.sess.Config.Values[demohost.ConfigApprovals] = json.RawMessage(`"autoApprove"`)
	if h := ansi.Strip(m.chatPanel.chatHeader(120)); !strings.Contains(h, "⚠ Allow all") {
		t.Errorf("an Allow-all session's header %q does not say so", h)
	}
	if h := ansi.Strip(m.chatPanel.chatHeader(34)); !strings.Contains(h, "⚠ Allow all") || strings.Contains(h, "/srv/app") {
		t.Errorf("narrow header %q: want the approval mode kept and the folder dropped", h)
	}
}

func TestFolderName(t *testing.T) {
	t.Setenv("HOME", "/home/ann")
	for in, want := range map[string]string{
		"file:///home/ann/src/app": "~/src/app",
		"file:///home/ann":         "~",
		"file:///home/annex":       "/home/annex",
		"vscode-remote://x/y":      "vscode-remote://x/y",
	} {
		if got := folderName(in); got != want {
			t.Errorf("folderName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestModelChangesMidSession: with an agent that offers several models,
// the settings sheet (O) has a Model row; → picks the next model without
// a confirmation (it widens nothing), the header names it, and the next
// message goes with it.
func TestModelChangesMidSession(t *testing.T) {
	chat := fxChatState()
	chat.ActiveTurn = nil
	m := fxModel(chat)
	m.keys.SetTurnRunning(false)
	stub := m.client.(*stubClient)
	stub.accept = true
	m.root.Agents[0].Models = append(m.root.Agents[0].Models, protocol.SessionModelInfo{ID: "m2", Provider: "demo", Name: "Careful model"})
	m.models[hostSession{m.cfg.Host, m.openSession}] = &protocol.ModelSelection{ID: "m1"}
	m.Update(press("O"))
	if !m.settings.open {
		t.Fatal("O did not open the settings sheet")
	}
	if s := ansi.Strip(m.Render()); !strings.Contains(s, "Model: ‹ Demo model ›") {
		t.Fatalf("the sheet has no Model row:\n%s", s)
	}
	pressUntil(t, m, "right", "the model changes", statusHas(m, "Model: Careful model, from the next message"))
	if m.modal == modalWiden {
		t.Fatal("a model change asked for a privilege confirmation")
	}
	m.Update(press("esc"))
	if h := ansi.Strip(m.chatPanel.chatHeader(120)); !strings.Contains(h, "Careful model") {
		t.Fatalf("header %q does not name the new model", h)
	}
	if msg := m.chatPanel.userMessage("hi"); msg.Model == nil || msg.Model.ID != "m2" {
		t.Fatalf("the next message goes with %+v, want m2", msg.Model)
	}
}
