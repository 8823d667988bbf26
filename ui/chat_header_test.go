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

// TestModelSettingsInSheet is issue 36 item 3's model settings: the
// model's own settings (its configSchema, VS Code's "Optimize for" on its
// Auto model) are rows under Model in the settings sheet (O); → picks the
// next value without a confirmation, and the next message carries it in
// Message.model.config with the model's id. A model change keeps a
// setting the new model also has and drops one it does not.
func TestModelSettingsInSheet(t *testing.T) {
	chat := fxChatState()
	chat.ActiveTurn = nil
	m := fxModel(chat)
	m.keys.SetTurnRunning(false)
	m.client.(*stubClient).accept = true
	prim := func(s string) protocol.JSONPrimitive { p, _ := protocol.NewJsonPrimitive(s); return p }
	desc := "Biases which models Auto routes this session to."
	optimize := protocol.ConfigPropertySchema{Type: "string", Title: "Optimize for", Description: &desc,
		Default: json.RawMessage(`"balance"`), Enum: []protocol.JSONPrimitive{prim("efficiency"), prim("balance"), prim("intelligence")},
		EnumLabels: []string{"Efficiency", "Balance", "Intelligence"}}
	thinking := protocol.ConfigPropertySchema{Type: "string", Title: "Thinking Level", Default: json.RawMessage(`"low"`),
		Enum: []protocol.JSONPrimitive{prim("low"), prim("high")}}
	m.root.Agents[0].Models = []protocol.SessionModelInfo{
		{ID: "auto", Provider: "demo", Name: "Auto", ConfigSchema: &protocol.ConfigSchema{Type: "object",
			Properties: map[string]protocol.ConfigPropertySchema{"autoTier": optimize, "reasoningEffort": thinking}}},
		{ID: "m2", Provider: "demo", Name: "Careful model", ConfigSchema: &protocol.ConfigSchema{Type: "object",
			Properties: map[string]protocol.ConfigPropertySchema{"reasoningEffort": thinking}}},
	}
	m.Update(press("O"))
	s := ansi.Strip(m.Render())
	if !strings.Contains(s, "Model: ‹ Auto ›") || !strings.Contains(s, "Optimize for: ‹ Balance ›") {
		t.Fatalf("the sheet has no Optimize for row under Model:\n%s", s)
	}
	if strings.Index(s, "Optimize for") < strings.Index(s, "Model: ‹") {
		t.Fatalf("Optimize for is not under Model:\n%s", s)
	}
	moveTo(t, m, "down", "▸ Optimize for")
	pressUntil(t, m, "right", "Optimize for changes", statusHas(m, "Optimize for: Intelligence, from the next message"))
	if m.modal == modalWiden {
		t.Fatal("a model setting asked for a privilege confirmation")
	}
	moveTo(t, m, "down", "▸ Thinking Level")
	pressUntil(t, m, "right", "Thinking Level changes", statusHas(m, "Thinking Level: high, from the next message"))
	msg := m.chatPanel.userMessage("hi")
	if msg.Model == nil || msg.Model.ID != "auto" || string(msg.Model.Config["autoTier"].Raw) != `"intelligence"` ||
		string(msg.Model.Config["reasoningEffort"].Raw) != `"high"` {
		b, _ := json.Marshal(msg.Model)
		t.Fatalf("the next message's model is %s, want auto with autoTier intelligence and reasoningEffort high", b)
	}
	if h := ansi.Strip(m.chatPanel.chatHeader(120)); !strings.Contains(h, "Auto (Intelligence, high)") {
		t.Fatalf("header %q does not name the model's settings", h)
	}
	// The model changes: Thinking Level is the new model's too and stays;
	// Optimize for is Auto's only and goes, and its row with it.
	moveTo(t, m, "up", "▸ Model")
	pressUntil(t, m, "right", "the model changes", statusHas(m, "Model: Careful model, from the next message"))
	if s := ansi.Strip(m.Render()); strings.Contains(s, "Optimize for") || !strings.Contains(s, "Thinking Level: ‹ high ›") {
		t.Fatalf("after the model change the sheet shows:\n%s", s)
	}
	msg = m.chatPanel.userMessage("hi")
	if b, _ := json.Marshal(msg.Model); string(b) != `{"id":"m2","config":{"reasoningEffort":"high"}}` {
		t.Fatalf("the next message's model is %s", b)
	}
}

// moveTo presses k until the screen shows want (a sheet's cursor on a
// row), at most forty times.
func moveTo(t *testing.T, m *Model, k, want string) {
	t.Helper()
	for range 40 {
		if strings.Contains(ansi.Strip(m.Render()), want) {
			return
		}
		m.Update(press(k))
	}
	t.Fatalf("%s never shows %q:\n%s", k, want, ansi.Strip(m.Render()))
}
