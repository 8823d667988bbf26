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
