package demohost

import (
	"testing"

	"github.com/ahptui/ahptui/protocol"
	"github.com/ahptui/ahptui/protocol/jsonrpc"
)

// TestHistorySideChats: the history session lists a subagent chat (its
// origin the earlier turn's tool call, which names it in its result) and
// a side chat on that turn whose message carries a ContentRef attachment
// resourceRead serves; the history chat exposes a canvas and the session
// an annotations summary, and both channels subscribe (issue 23's demo).
// Over 0.6 none of it is seeded.
func TestHistorySideChats(t *testing.T) {
	h, v := startHost(t, Config{})
	c := dial(t, h, v, "side-chats-test")
	c.initialize()
	var sub protocol.SubscribeResult
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistorySessionURI}, &sub)
	sess := sub.Snapshot.State.Variant.(protocol.SessionState)
	if len(sess.Chats) != 3 {
		t.Fatalf("history chats: %+v", sess.Chats)
	}
	if o, ok := sess.Chats[1].Origin.Variant.(protocol.ChatToolOrigin); !ok || sess.Chats[1].Resource != SubagentChatURI || o.ToolCallID != SubagentToolCallID {
		t.Errorf("the subagent's chat: %+v", sess.Chats[1])
	}
	if o, ok := sess.Chats[2].Origin.Variant.(protocol.ChatSideChatOrigin); !ok || sess.Chats[2].Resource != SideChatURI || o.Chat != HistoryChatURI {
		t.Errorf("the side chat: %+v", sess.Chats[2])
	}
	if a := sess.Annotations; a == nil || a.Resource != HistoryAnnotations || a.AnnotationCount != 2 || a.EntryCount != 3 {
		t.Errorf("annotations summary: %+v", a)
	}

	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistoryChatURI}, &sub)
	hist := sub.Snapshot.State.Variant.(protocol.ChatState)
	var linked string
	for _, p := range hist.Turns[0].ResponseParts {
		if tc, ok := p.Variant.(protocol.ToolCallResponsePart); ok && tc.ToolCall.ID() == SubagentToolCallID {
			linked = tc.ToolCall.SubagentChat()
		}
	}
	if linked != SubagentChatURI {
		t.Errorf("the subagent's tool call links to %q", linked)
	}
	var list protocol.ListSessionsResult
	c.mustCall("listSessions", protocol.ListSessionsParams{}, &list)
	for _, it := range list.Items {
		if it.Resource == HistorySessionURI && it.ModifiedAt != hist.ModifiedAt {
			t.Errorf("the session's modifiedAt %s is not its first chat's %s: the side chats moved it", it.ModifiedAt, hist.ModifiedAt)
		}
	}
	if len(hist.Canvases) != 1 || hist.Canvases[0].Resource != HistoryCanvasURI {
		t.Errorf("canvases: %+v", hist.Canvases)
	}

	c.mustCall("subscribe", protocol.SubscribeParams{Channel: SideChatURI}, &sub)
	side := sub.Snapshot.State.Variant.(protocol.ChatState)
	att, ok := side.Turns[0].Message.Attachments[0].Variant.(protocol.MessageResourceAttachment)
	if !ok {
		t.Fatalf("the side chat's attachment: %+v", side.Turns[0].Message.Attachments)
	}
	var read protocol.ResourceReadResult
	c.mustCall("resourceRead", protocol.ResourceReadParams{URI: string(att.URI)}, &read)
	if read.Data != SideAttachmentText || *att.SizeHint != int64(len(SideAttachmentText)) {
		t.Errorf("the attachment reads %q (hint %d)", read.Data, *att.SizeHint)
	}

	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistoryCanvasURI}, &sub)
	if cv, ok := sub.Snapshot.State.Variant.(protocol.CanvasState); !ok || cv.Title == nil || *cv.Title != HistoryCanvasTitle {
		t.Errorf("canvas: %+v", sub.Snapshot.State.Variant)
	}
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: HistoryAnnotations}, &sub)
	if an, ok := sub.Snapshot.State.Variant.(protocol.AnnotationsState); !ok || len(an.Annotations) != 2 || len(an.Annotations[0].Entries) != 2 {
		t.Errorf("annotations: %+v", sub.Snapshot.State.Variant)
	}

	old, v6 := startHost(t, Config{Version: Version06})
	c6 := dial(t, old, v6, "side-chats-06")
	c6.initialize()
	c6.mustCall("subscribe", protocol.SubscribeParams{Channel: HistorySessionURI}, &sub)
	if chats := sub.Snapshot.State.Variant.(protocol.SessionState).Chats; len(chats) != 1 {
		t.Errorf("over 0.6 the history session's chats are %+v, want its own", chats)
	}
	c6.wantError("subscribe", protocol.SubscribeParams{Channel: HistoryCanvasURI}, jsonrpc.NotFound)
}

// TestCreateSideChat: over 1.0 the demo agent advertises side chats
// (capabilities.multipleChats.sideChat) and createChat with a sideChat
// source makes one: its origin names the source chat and turn (and keeps
// the selection), it starts with no turns of its own (the source is
// context, not history), it joins the session's catalogue and the agent
// works on a message sent to it. Unknown turns, other sessions' chats and empty selections are
// refused. Over older wires the capability is not advertised and the
// source is refused, as a client must not send it.
func TestCreateSideChat(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		h, v := startHost(t, Config{Version: version, StepDelay: -1})
		c := dial(t, h, v, "side-maker")
		res := c.initialize(rootURI, HistorySessionURI)
		root, _ := res.Snapshots[0].State.Variant.(protocol.RootState)
		mc := root.Agents[0].Capabilities.MultipleChats
		advertised := mc != nil && mc.SideChat != nil && *mc.SideChat
		side := protocol.ChatSource{Variant: protocol.SideChatSource{Chat: HistoryChatURI, TurnID: "history-1",
			Selection: &protocol.SideChatSelection{Text: "5 s"}}}
		p := protocol.CreateChatParams{Channel: HistorySessionURI, Chat: chatURIOf("side-new", HistorySessionURI), Source: &side}
		if version != Version10 {
			if advertised {
				t.Fatal("side chats advertised below 1.0")
			}
			if version != Version06 { // 0.6 has no side-chat source to send
				c.wantError("createChat", p, jsonrpc.InvalidParams)
			}
			return
		}
		if !advertised {
			t.Fatalf("side chats not advertised over 1.0: %+v", mc)
		}
		for _, bad := range []protocol.SideChatSource{
			{Chat: HistoryChatURI, TurnID: "nope"},
			{Chat: DemoChatURI, TurnID: "history-1"},
			{Chat: HistoryChatURI, TurnID: "history-1", Selection: &protocol.SideChatSelection{}},
		} {
			c.wantError("createChat", protocol.CreateChatParams{Channel: HistorySessionURI, Chat: chatURIOf("side-bad", HistorySessionURI),
				Source: &protocol.ChatSource{Variant: bad}}, jsonrpc.InvalidParams)
		}
		c.mustCall("createChat", p, nil)
		c.waitUntil("the side chat in the catalogue", func() bool {
			chats := c.sessionMirrorLocked(HistorySessionURI).Chats
			return len(chats) == 4 && chats[3].Resource == p.Chat
		})
		var sub protocol.SubscribeResult
		c.mustCall("subscribe", protocol.SubscribeParams{Channel: p.Chat}, &sub)
		ch := sub.Snapshot.State.Variant.(protocol.ChatState)
		o, ok := ch.Origin.Variant.(protocol.ChatSideChatOrigin)
		if !ok || o.Chat != HistoryChatURI || o.TurnID != "history-1" || o.Selection == nil || o.Selection.Text != "5 s" {
			t.Fatalf("side chat origin = %#v", ch.Origin.Variant)
		}
		if len(ch.Turns) != 0 || ch.Title != "Side chat on Flaky test" {
			t.Errorf("side chat title %q, turns %+v", ch.Title, ch.Turns)
		}
		c.dispatch(p.Chat, turnStarted("s1", "why?"))
		c.waitUntil("the side chat's answer", func() bool {
			c2, _ := c.mirror[p.Chat].(protocol.ChatState)
			return c2.ActiveTurn != nil && c2.ActiveTurn.ID == "s1" && len(c2.ActiveTurn.ResponseParts) > 0
		})
	})
}

// TestCreateChatTakesTheHostsShape: VS Code's agent host refuses a chat
// URI not spelled ahp-chat://<chat id>/<base64url(session URI)>, the shape
// of its default chat, and the demo used to take any ahp-chat:/<id>, so
// a client minting the schema's example shape worked here and failed
// there. The demo now spells its chats that way and refuses the rest.
func TestCreateChatTakesTheHostsShape(t *testing.T) {
	h, v := startHost(t, Config{NoDemoSession: true})
	c := dial(t, h, v, "shaper")
	c.initialize(rootURI)
	const uri = "ahp-session:/shaped"
	c.mustCall("createSession", protocol.CreateSessionParams{Channel: uri}, nil)
	c.mustCall("subscribe", protocol.SubscribeParams{Channel: uri}, nil)
	c.waitUntil("the session's default chat", func() bool { return c.sessionMirrorLocked(uri).DefaultChat != nil })
	if got, want := *c.sessionMirrorLocked(uri).DefaultChat, "ahp-chat://default/YWhwLXNlc3Npb246L3NoYXBlZA"; got != want {
		t.Fatalf("default chat %q, want %q", got, want)
	}
	for _, bad := range []string{
		"ahp-chat:/4b0c9e",                                 // the schema's example shape
		"ahp-chat://c0ffee01/",                             // no session
		"ahp-chat://c0ffee01/YWhwLXNlc3Npb246L2RlbW8",      // another session's
		"ahp-chat:///YWhwLXNlc3Npb246L3NoYXBlZA",           // no chat id
		"ahp-chat://c0ffee01/YWhwLXNlc3Npb246L3NoYXBlZA==", // padded
	} {
		c.wantError("createChat", protocol.CreateChatParams{Channel: uri, Chat: bad}, jsonrpc.InvalidParams)
	}
	good := "ahp-chat://c0ffee01/YWhwLXNlc3Npb246L3NoYXBlZA"
	c.mustCall("createChat", protocol.CreateChatParams{Channel: uri, Chat: good}, nil)
	c.waitUntil("the chat in the catalogue", func() bool { return len(c.sessionMirrorLocked(uri).Chats) == 2 })
}
