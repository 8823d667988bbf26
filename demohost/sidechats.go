package demohost

import (
	"time"

	"github.com/ahptui/ahptui/protocol"
)

// The history session's other chats and what it holds besides them
// (issue 23), so --demo shows each in the chat switcher and the sheets
// that list them: a subagent the earlier turn ran (its tool call links to
// its chat), a side chat about that turn whose message carries a
// ContentRef attachment (read only when the user asks), a canvas and
// annotations. Only on the 1.0 wire, like the changesets; the subagent's
// tool call is in the turn on every wire (without its link below 1.0), so
// the turn reads the same whatever the version.
const (
	SubagentChatURI    = "ahp-chat:/history-subagent"
	SubagentChatTitle  = "Flake hunter"
	SubagentToolCallID = "history-1-sub"
	SideChatURI        = "ahp-chat:/history-side"
	SideChatTitle      = "Side: is 5 s enough?"
	// SideAttachmentURI names the side chat's attachment, a ContentRef
	// served by resourceRead.
	SideAttachmentURI   = demoContentScheme + "logs/reconnect-flake.log"
	SideAttachmentLabel = "reconnect-flake.log"
	HistoryCanvasURI    = "ahp-canvas:/history/flake-chart"
	HistoryCanvasTitle  = "Reconnect timings"
	HistoryAnnotations  = HistorySessionURI + "/annotations"
)

// SideAttachmentText is the attachment's content.
const SideAttachmentText = "run 1: reconnect after 180ms ok\nrun 2: reconnect after 240ms FAIL (slept 200ms)\nrun 3: reconnect after 150ms ok\n"

// seedSideChatsLocked adds the subagent and side chats, the canvas and
// the annotations to the history session, after seedHistoryLocked.
func (h *Host) seedSideChatsLocked(s *session) {
	hist := h.chats[HistoryChatURI]
	if hist == nil || len(hist.state.Turns) == 0 {
		return
	}
	turn := &hist.state.Turns[0]
	desc, agent := "Run TestReconnect 50 times and find what the failures share", "flake-hunter"
	done := protocol.ToolCallCompletedState{
		ToolCallID: SubagentToolCallID, ToolName: "task", DisplayName: "Run subagent",
		InvocationMessage: protocol.PlainString("Asking a subagent to hunt the flake"), PastTenseMessage: protocol.PlainString("The subagent hunted the flake"),
		Success: true, Confirmed: protocol.ToolCallConfirmationReasonNotNeeded,
		Content: textContent("3 failures in 50 runs, each after a slow reconnect"),
	}
	if !h.wire.older() {
		done.Content = []protocol.ToolResultContent{protocol.NewToolResultContent(protocol.ToolResultSubagentContent{
			Resource: SubagentChatURI, Title: SubagentChatTitle, AgentName: &agent, Description: &desc})}
	}
	call := protocol.NewResponsePart(protocol.ToolCallResponsePart{ToolCall: protocol.NewToolCallState(done)})
	// Before the closing answer, which the subagent's finding informs.
	n := len(turn.ResponseParts)
	parts := append(append(append([]protocol.ResponsePart(nil), turn.ResponseParts[:n-1]...), call), turn.ResponseParts[n-1])
	turn.ResponseParts = parts

	// Inside the earlier turn's time, so the session's modifiedAt (its
	// chats' latest) stays the turn's end, as over older wires.
	start, _ := time.Parse(time.RFC3339Nano, *turn.StartedAt)
	start = start.Add(time.Second)
	readOnly := protocol.ChatInteractivityReadOnly
	sub := &chat{uri: SubagentChatURI, session: s.uri, state: protocol.ChatState{
		Resource: SubagentChatURI, Title: SubagentChatTitle, Status: protocol.SessionStatusIdle,
		ModifiedAt: isoTime(start.Add(2 * time.Second)), Interactivity: &readOnly,
		Origin: &protocol.ChatOrigin{Variant: protocol.ChatToolOrigin{Chat: HistoryChatURI, ToolCallID: SubagentToolCallID}},
		Turns: []protocol.Turn{finishedTurn("sub-1", start, protocol.MessageKindTool, desc+".", nil,
			"Ran it 50 times: 3 failures, each one when the reconnect took longer than the test's **200 ms** sleep.\n")},
	}}
	if h.wire.older() {
		return
	}
	h.addChatLocked(s, sub)
	if h.contents == nil {
		h.contents = map[string]string{}
	}
	h.contents[SideAttachmentURI] = SideAttachmentText
	hist.state.Canvases = []protocol.CanvasReference{{Resource: HistoryCanvasURI}}
	s.state.Chats[0] = chatSummary(hist.state)
	side := &chat{uri: SideChatURI, session: s.uri, state: protocol.ChatState{
		Resource: SideChatURI, Title: SideChatTitle, Status: protocol.SessionStatusIdle,
		ModifiedAt: hist.state.ModifiedAt,
		Origin:     &protocol.ChatOrigin{Variant: protocol.ChatSideChatOrigin{Chat: HistoryChatURI, TurnID: turn.ID}},
		Turns: []protocol.Turn{finishedTurn("side-1", start.Add(2*time.Second), protocol.MessageKindUser,
			"Is a 5 s timeout enough? Here is the log of the failing runs.",
			[]protocol.MessageAttachment{{Variant: resourceAttachment(SideAttachmentLabel, SideAttachmentURI, int64(len(SideAttachmentText)))}},
			"Yes: the slowest reconnect in the log took 240 ms, far under 5 s.\n")},
	}}
	h.addChatLocked(s, side)
	s.state.Annotations = &protocol.AnnotationsSummary{Resource: HistoryAnnotations, AnnotationCount: 2, EntryCount: 3}
	s.summary = h.sessionSummaryLocked(s)
}

func (h *Host) addChatLocked(s *session, c *chat) {
	h.chats[c.uri] = c
	s.chats = append(s.chats, c.uri)
	s.state.Chats = append(s.state.Chats, chatSummary(c.state))
}

func resourceAttachment(label, uri string, size int64) protocol.MessageResourceAttachment {
	ct := "text/plain"
	return protocol.MessageResourceAttachment{Label: label, URI: protocol.URI(uri), SizeHint: &size, ContentType: &ct}
}

// finishedTurn is a completed turn with one message and one answer.
func finishedTurn(id string, at time.Time, from protocol.MessageKind, text string, att []protocol.MessageAttachment, answer string) protocol.Turn {
	started, dur := isoTime(at), 2000.0
	return protocol.Turn{ID: id, StartedAt: &started, Duration: &dur, State: protocol.TurnStateComplete,
		Message:       protocol.Message{Text: text, Origin: protocol.MessageOrigin{Kind: from}, Attachments: att},
		ResponseParts: []protocol.ResponsePart{protocol.NewResponsePart(protocol.MarkdownResponsePart{ID: id + "-a", Content: protocol.NewText(answer)})}}
}

// extraStateLocked is the state of the history session's canvas and
// annotations channels; nil when uri names neither (or the wire is older).
func (h *Host) extraStateLocked(uri string) protocol.SnapshotStateVariant {
	if h.wire.older() || h.chats[SideChatURI] == nil {
		return nil
	}
	switch uri {
	case HistoryCanvasURI:
		name, title, status := "Demo charts", HistoryCanvasTitle, "3 runs plotted"
		return protocol.CanvasState{InstanceID: "flake-chart", ExtensionID: "demo.charts", ExtensionName: &name,
			CanvasID: "timings", Title: &title, Status: &status}
	case HistoryAnnotations:
		chat, turn := protocol.URI(HistoryChatURI), "history-1"
		origin := protocol.AnnotationOrigin{Session: HistorySessionURI, Chat: &chat, TurnID: &turn}
		entry := func(id, text string) protocol.AnnotationEntry {
			return protocol.AnnotationEntry{ID: id, Text: protocol.StringOrMarkdown{Value: text}}
		}
		return protocol.AnnotationsState{Annotations: []protocol.Annotation{
			{ID: "a1", Origin: origin, Resource: "file:///demo/protocol/conn_test.go", Entries: []protocol.AnnotationEntry{
				entry("a1-1", "Why 5 s and not 1 s?"), entry("a1-2", "CI machines are slow; 5 s leaves room.")}},
			{ID: "a2", Origin: origin, Resource: "file:///demo/protocol/wait.go", Resolved: true, Entries: []protocol.AnnotationEntry{
				entry("a2-1", "Nice helper.")}},
		}}
	}
	return nil
}
